import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { z } from 'zod';
import { isDatabaseUnavailable } from '../db/errors';
import { DEMO_ACCOUNTS, DuplicateEmailError, type AccountStore } from './accounts';
import { messagePage, signInPage, signUpPage, type SignUpErrors } from './pages';
import { forwardFastifyView } from './provider-mount';
import { OIDC_MOUNT } from './provider';
import { SignInLimiter } from './sign-in-limits';

const credentialsSchema = z.object({
  email: z.string().trim().default(''),
  password: z.string().default(''),
});
const demoSchema = z.object({ who: z.enum(['admin', 'director1', 'director2']) });
const signUpSchema = z.object({
  name: z.string().trim().default(''),
  email: z.string().trim().default(''),
  password: z.string().default(''),
});
const emailFormat = z.string().email();

/** The sign-in, sign-up and (implicit) consent steps of an authorization request. */
export default async function interactionRoutes(
  app: FastifyInstance,
  { provider, accounts }: { provider: Provider; accounts: AccountStore },
) {
  await app.register(formbody);
  app.addHook('onRequest', forwardFastifyView);
  const { config } = app;
  const productName = config.PRODUCT_NAME;

  // Password guessing: per client address, per email from one address, and per email from everywhere (which holds
  // back only addresses that have been failing on it, so nobody can lock an account's owner out). sign-in-limits.ts.
  // In the database, so every process of a cluster counts the same attempts and a restart forgets none.
  const signInLimits = new SignInLimiter(app.db, undefined, (err) =>
    app.log.warn({ err }, 'sign-in limits: sweeping old rows failed'),
  );

  const html = (reply: FastifyReply, body: string, status = 200) =>
    reply
      .code(status)
      .header('cache-control', 'no-store')
      .header('x-frame-options', 'DENY')
      .type('text/html; charset=utf-8')
      .send(body);

  async function details(request: FastifyRequest, reply: FastifyReply) {
    try {
      return await provider.interactionDetails(request.raw, reply.raw);
    } catch (err) {
      // The database away is not an expired page: the app's 503 with Retry-After (platform/errors.ts).
      if (isDatabaseUnavailable(err)) throw err;
      return undefined;
    }
  }

  const expired = (reply: FastifyReply) =>
    html(
      reply,
      messagePage(
        productName,
        'This sign-in page has expired',
        'Go back to the app and choose Director Login again.',
        `${config.publicUrl}/`,
      ),
      400,
    );

  async function demoButtons() {
    if (!config.demoAccounts) return [];
    const demos = await accounts.demoAccounts();
    return (Object.keys(DEMO_ACCOUNTS) as (keyof typeof DEMO_ACCOUNTS)[])
      .map((who) => {
        const account = demos.find((d) => d.email.toLowerCase() === DEMO_ACCOUNTS[who].email);
        return account
          ? {
              who,
              name: account.name,
              email: account.email,
              role: account.groups.includes(config.adminGroupId) ? 'Administrator' : 'Race director',
            }
          : undefined;
      })
      .filter((d) => d !== undefined);
  }

  async function finishLogin(request: FastifyRequest, reply: FastifyReply, accountId: string) {
    // `create` resolves a prompt=create request too (the user may sign in instead of signing up).
    const returnTo = await provider.interactionResult(
      request.raw,
      reply.raw,
      { login: { accountId }, create: {} },
      { mergeWithLastSubmission: false },
    );
    return reply.redirect(returnTo, 303);
  }

  app.get<{ Params: { uid: string }; Querystring: { view?: string } }>(
    `${OIDC_MOUNT}/interaction/:uid`,
    async (request, reply) => {
      const interaction = await details(request, reply);
      if (!interaction) return expired(reply);
      const { prompt, params, uid } = interaction;

      if (prompt.name === 'consent') {
        // Implicit consent, for our own client only (the only registered one).
        if (params.client_id !== config.clientId) return expired(reply);
        const grant = interaction.grantId
          ? ((await provider.Grant.find(interaction.grantId)) ??
            new provider.Grant({ accountId: interaction.session!.accountId, clientId: config.clientId }))
          : new provider.Grant({ accountId: interaction.session!.accountId, clientId: config.clientId });
        const d = prompt.details as {
          missingOIDCScope?: string[];
          missingOIDCClaims?: string[];
          missingResourceScopes?: Record<string, string[]>;
        };
        if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(' '));
        if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
        for (const [indicator, scopes] of Object.entries(d.missingResourceScopes ?? {})) {
          grant.addResourceScope(indicator, scopes.join(' '));
        }
        const grantId = await grant.save();
        const returnTo = await provider.interactionResult(
          request.raw,
          reply.raw,
          { consent: { grantId } },
          { mergeWithLastSubmission: true },
        );
        return reply.redirect(returnTo, 303);
      }

      if (prompt.name === 'create' || request.query.view === 'signup') {
        return html(reply, signUpPage({ productName, uid }));
      }
      return html(
        reply,
        signInPage({
          productName,
          uid,
          email: typeof params.login_hint === 'string' ? params.login_hint : '',
          demos: await demoButtons(),
        }),
      );
    },
  );

  app.post<{ Params: { uid: string } }>(`${OIDC_MOUNT}/interaction/:uid/login`, async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return expired(reply);
    const { email, password } = credentialsSchema.parse(request.body ?? {});
    const attempt = email && password ? await signInLimits.begin(email, request.ip) : undefined;
    if (email && password && !attempt) {
      return html(
        reply,
        signInPage({
          productName,
          uid: interaction.uid,
          email,
          error: 'Too many sign-in attempts. Wait a few minutes, then try again.',
          demos: await demoButtons(),
        }),
        429,
      );
    }
    const found = email && password ? await accounts.authenticate(email, password) : undefined;
    if (found) await attempt?.succeeded();
    // Demo accounts (password "demo") stop working as soon as DEMO_ACCOUNTS is off.
    const account = found && (!found.isDemo || config.demoAccounts) ? found : undefined;
    if (!account) {
      return html(
        reply,
        signInPage({
          productName,
          uid: interaction.uid,
          email,
          error: email && password ? 'Wrong email or password.' : 'Enter your email and password to sign in.',
          demos: await demoButtons(),
        }),
      );
    }
    return finishLogin(request, reply, account.id);
  });

  app.post<{ Params: { uid: string } }>(`${OIDC_MOUNT}/interaction/:uid/demo`, async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return expired(reply);
    const parsed = demoSchema.safeParse(request.body ?? {});
    const account = parsed.success
      ? await accounts.findByEmail(DEMO_ACCOUNTS[parsed.data.who].email)
      : undefined;
    if (!config.demoAccounts || !account?.isDemo) {
      return html(
        reply,
        signInPage({
          productName,
          uid: interaction.uid,
          error: 'That demo account is not available.',
          demos: await demoButtons(),
        }),
      );
    }
    return finishLogin(request, reply, account.id);
  });

  app.post<{ Params: { uid: string } }>(`${OIDC_MOUNT}/interaction/:uid/signup`, async (request, reply) => {
    const interaction = await details(request, reply);
    if (!interaction) return expired(reply);
    const { name, email, password } = signUpSchema.parse(request.body ?? {});
    const errors: SignUpErrors = {};
    if (!name) errors.name = 'Enter your name.';
    else if (name.length > 100) errors.name = 'The name must be at most 100 characters.';
    if (!email) errors.email = 'Enter your email address.';
    else if (!emailFormat.safeParse(email).success || email.length > 254)
      errors.email = 'Enter a valid email address, like name@example.com.';
    if (password.length < 8) errors.password = 'The password must be at least 8 characters.';
    else if (password.length > 200) errors.password = 'The password must be at most 200 characters.';
    if (Object.keys(errors).length === 0) {
      try {
        const account = await accounts.create({ name, email, password });
        return await finishLogin(request, reply, account.id);
      } catch (err) {
        if (!(err instanceof DuplicateEmailError)) throw err;
        errors.email = err.message;
      }
    }
    errors.form = 'Please correct the fields marked below.';
    return html(reply, signUpPage({ productName, uid: interaction.uid, values: { name, email }, errors }));
  });
}
