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

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f3f5f8;color:#1c2430;line-height:1.45}
header{background:#14213d;color:#fff;padding:14px 20px;font-weight:700;font-size:1.15rem;letter-spacing:.02em}
header span{color:#fca311;font-weight:400;margin-left:6px;font-size:.9rem}
main{max-width:420px;margin:28px auto;padding:0 16px}
.card{background:#fff;border-radius:10px;box-shadow:0 1px 4px rgba(20,33,61,.15);padding:22px 20px}
h1{font-size:1.35rem;margin:0 0 14px}
h2{font-size:1rem;margin:22px 0 8px}
label{display:block;font-weight:600;margin:12px 0 4px}
input{width:100%;padding:10px 12px;font-size:1rem;border:1px solid #9aa5b5;border-radius:6px}
input:focus{outline:3px solid #fca31166;border-color:#14213d}
button{width:100%;margin-top:16px;padding:11px 12px;font-size:1rem;font-weight:600;border:0;border-radius:6px;background:#14213d;color:#fff;cursor:pointer}
button:hover{background:#23365f}
button.demo{background:#fff;color:#14213d;border:1px solid #14213d;margin-top:8px;text-align:left}
button.demo small{display:block;font-weight:400;color:#4a5668}
.error{background:#fdecea;color:#8a1c12;border:1px solid #f5c2bd;border-radius:6px;padding:8px 10px;margin:0 0 10px}
.field-error{color:#8a1c12;font-size:.9rem;margin:4px 0 0}
.hint{color:#4a5668;font-size:.9rem}
a{color:#14213d}
p.switch{margin:18px 0 0;text-align:center}
`;

function layout(productName: string, title: string, body: string, extraHead = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · ${escapeHtml(productName)}</title>
<style>${STYLE}</style>${extraHead}
</head>
<body>
<header>${escapeHtml(productName)}<span>live</span></header>
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

/** RP-initiated logout: the provider's confirmation form, submitted at once (sign-out needs no extra click). */
export function logoutPage(productName: string, form: string): string {
  const confirmed = form.replace('</form>', '<input type="hidden" name="logout" value="yes"></form>');
  return layout(
    productName,
    'Signing out',
    `<div class="card">
<h1>Signing out…</h1>
${confirmed}
<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>
<script>document.getElementById('op.logoutForm').submit()</script>
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
