/**
 * Server-rendered pages of the embedded identity provider: sign-in, sign-up, sign-out and errors. Plain HTML
 * with inline CSS (no client JavaScript except the auto-submitted sign-out form), readable at 375 px.
 */

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** The pages' one stylesheet, inline: the Content-Security-Policy allows exactly this text by its hash. */
export const PAGE_STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;background:#f4f6f9;color:#16202e}
header{background:#0b3a5b;color:#fff}
header a{display:flex;align-items:center;gap:10px;max-width:1120px;margin:0 auto;padding:14px 20px;color:#fff;text-decoration:none;font-weight:700;font-size:1.15rem}
main{max-width:440px;margin:28px auto;padding:0 16px}
.card{background:#fff;border:1px solid #d5dce6;border-radius:12px;box-shadow:0 1px 2px rgb(16 24 40/6%),0 4px 12px rgb(16 24 40/6%);padding:22px 20px}
h1{font-size:1.45rem;line-height:1.2;margin:0 0 14px}
h2{font-size:1.05rem;margin:24px 0 6px}
label{display:block;font-weight:600;margin:12px 0 4px}
input{width:100%;padding:10px 12px;font:inherit;border:1px solid #8593a6;border-radius:8px;background:#fff;color:#16202e}
:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
button{width:100%;margin-top:16px;padding:11px 12px;font:inherit;font-weight:600;border:0;border-radius:8px;background:#c2410c;color:#fff;cursor:pointer}
button:hover{background:#9a3412}
button.demo{background:#fff;color:#0b3a5b;border:1px solid #0b3a5b;margin-top:8px;text-align:left}
button.demo:hover{background:#eef2f7}
button.demo small{display:block;font-weight:400;color:#4d5b6e}
.error{background:#fdecea;color:#b42318;border:1px solid #f5c2bd;border-radius:8px;padding:8px 10px;margin:0 0 10px}
.field-error{color:#b42318;font-size:.9rem;margin:4px 0 0}
.hint{color:#4d5b6e;font-size:.9rem;margin:4px 0 0}
a{color:#1d4ed8}
p.switch{margin:18px 0 0;text-align:center}
`;

/** The app's beacon mark (apps/web/src/app/logo.tsx), decorative. */
const LOGO =
  '<svg width="28" height="28" viewBox="0 0 48 48" aria-hidden="true"><path d="M24 6c-7 0-12.5 5.4-12.5 12.3C11.5 27.5 24 42 24 42s12.5-14.5 12.5-23.7C36.5 11.4 31 6 24 6z" fill="currentColor"/><circle cx="24" cy="18.5" r="4.5" fill="#0b3a5b"/><path d="M7.5 11a19 19 0 0 0 0 15M40.5 11a19 19 0 0 1 0 15" fill="none" stroke="currentColor" stroke-width="3" stroke-linecap="round" opacity=".55"/></svg>';

function layout(productName: string, title: string, body: string, extraHead = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${escapeHtml(productName)}</title>
<style>${PAGE_STYLE}</style>${extraHead}
</head>
<body>
<header><a href="/">${LOGO}<span>${escapeHtml(productName)}</span></a></header>
<main>${body}</main>
</body>
</html>`;
}

export interface DemoButton {
  who: string;
  name: string;
  email: string;
  role: string;
}

export function signInPage(opts: {
  productName: string;
  uid: string;
  email?: string;
  error?: string;
  demos: DemoButton[];
}): string {
  const base = `/oidc/interaction/${encodeURIComponent(opts.uid)}`;
  const demos = opts.demos.length
    ? `<h2>Try a demo account</h2>
<p class="hint">One click, no password to type. Demo accounts exist on a fresh install.</p>
<form method="post" action="${base}/demo">
${opts.demos
  .map(
    (d) =>
      `<button class="demo" type="submit" name="who" value="${escapeHtml(d.who)}" data-testid="demo-login-${escapeHtml(d.who)}">Sign in as ${escapeHtml(d.name)} <small>${escapeHtml(d.role)} · ${escapeHtml(d.email)}</small></button>`,
  )
  .join('\n')}
</form>`
    : '';
  return layout(
    opts.productName,
    'Sign in',
    `<div class="card">
<h1>Sign in to ${escapeHtml(opts.productName)}</h1>
${opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : ''}
<form method="post" action="${base}/login" novalidate>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(opts.email)}"${opts.error ? ' aria-invalid="true"' : ''}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<p class="switch">No account yet? <a href="${base}?view=signup">Create an account</a></p>
${demos}
</div>`,
  );
}

export interface SignUpValues {
  name?: string;
  email?: string;
}
export interface SignUpErrors {
  name?: string;
  email?: string;
  password?: string;
  form?: string;
}

export function signUpPage(opts: {
  productName: string;
  uid: string;
  values?: SignUpValues;
  errors?: SignUpErrors;
}): string {
  const base = `/oidc/interaction/${encodeURIComponent(opts.uid)}`;
  const v = opts.values ?? {};
  const e = opts.errors ?? {};
  const field = (
    id: (keyof SignUpErrors & keyof SignUpValues) | 'password',
    label: string,
    type: string,
    autocomplete: string,
    hint?: string,
  ) => {
    const err = e[id as keyof SignUpErrors];
    const describedBy = [hint ? `${id}-hint` : '', err ? `${id}-error` : ''].filter(Boolean).join(' ');
    const value = id === 'password' ? '' : escapeHtml(v[id as keyof SignUpValues]);
    return `<label for="${id}">${label}</label>
<input id="${id}" name="${id}" type="${type}" autocomplete="${autocomplete}" required value="${value}"${describedBy ? ` aria-describedby="${describedBy}"` : ''}${err ? ' aria-invalid="true"' : ''}>
${hint ? `<p class="hint" id="${id}-hint">${hint}</p>` : ''}${err ? `<p class="field-error" id="${id}-error">${escapeHtml(err)}</p>` : ''}`;
  };
  return layout(
    opts.productName,
    'Create an account',
    `<div class="card">
<h1>Create your director account</h1>
${e.form ? `<p class="error" role="alert">${escapeHtml(e.form)}</p>` : ''}
<form method="post" action="${base}/signup" novalidate>
${field('name', 'Name', 'text', 'name')}
${field('email', 'Email', 'email', 'email')}
${field('password', 'Password', 'password', 'new-password', 'At least 8 characters.')}
<button type="submit">Create account</button>
</form>
<p class="switch">Already have an account? <a href="${base}">Sign in</a></p>
</div>`,
  );
}

/** The sign-out page's one script (allowed by its hash in the Content-Security-Policy). */
export const LOGOUT_SCRIPT = "document.getElementById('op.logoutForm').submit()";

/**
 * RP-initiated logout: the provider's confirmation form. Submitted at once only when the request proved it came
 * from the app the user signed in to (`auto`: a valid `id_token_hint` of the signed-in account); otherwise it asks
 * for a click, so a link on any site cannot sign the user out.
 */
export function logoutPage(productName: string, form: string, auto: boolean): string {
  const confirmed = form.replace('</form>', '<input type="hidden" name="logout" value="yes"></form>');
  if (!auto) {
    return layout(
      productName,
      'Sign out',
      `<div class="card">
<h1>Sign out of ${escapeHtml(productName)}?</h1>
${confirmed}
<button type="submit" form="op.logoutForm">Sign out</button>
</div>`,
    );
  }
  return layout(
    productName,
    'Signing out',
    `<div class="card">
<h1>Signing out…</h1>
${confirmed}
<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>
<script>${LOGOUT_SCRIPT}</script>
</div>`,
  );
}

export function messagePage(productName: string, title: string, message: string, homeUrl: string): string {
  return layout(
    productName,
    title,
    `<div class="card">
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(message)}</p>
<p><a href="${escapeHtml(homeUrl)}">Back to ${escapeHtml(productName)}</a></p>
</div>`,
  );
}
