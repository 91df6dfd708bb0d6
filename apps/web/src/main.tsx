import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import './styles.css';
import { AppConfigContext, fetchAppConfig } from './lib/app-config';
import { AuthProvider, getAccessToken } from './lib/auth';
import { createAppRouter } from './app/router';
import { setAccessTokenSource } from './lib/api-client';
import { startI18n } from './i18n';

async function start() {
  // Configuration first: the product name, contact e-mail and sign-in settings shape every screen.
  // The texts of the viewer's language (a lazy catalogue unless English) load beside the configuration.
  const [config] = await Promise.all([fetchAppConfig(), startI18n()]);
  document.title = config.productName;
  setAccessTokenSource(getAccessToken);
  const router = createAppRouter();
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <AppConfigContext.Provider value={config}>
        <AuthProvider config={config.auth}>
          <RouterProvider router={router} />
        </AuthProvider>
      </AppConfigContext.Provider>
    </StrictMode>,
  );
}

void start();
