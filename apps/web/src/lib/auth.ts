/** The app's one door to the sign-in layer (apps/web/src/auth): screens import auth from here only. */
export {
  AuthProvider,
  SignInProblem,
  useAuth,
  getAccessToken,
  isOwner,
  type Account,
  type AuthState,
} from '../auth';
