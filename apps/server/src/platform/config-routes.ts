import { publicConfigSchema, type PublicConfig } from '@racebeacon/domain';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/**
 * GET /api/config: what the web app needs at runtime (the same build runs against the embedded provider, Entra
 * External ID or Keycloak; only the server's environment differs).
 */
export default async function configRoutes(app: FastifyInstance) {
  const { config } = app;
  const body: PublicConfig = {
    productName: config.PRODUCT_NAME,
    contactEmail: config.CONTACT_EMAIL,
    auth: {
      authority: config.issuer,
      clientId: config.clientId,
      scope: config.apiScope,
      adminGroupId: config.adminGroupId,
      redirectUri: `${config.publicUrl}/auth/callback`,
      postLogoutRedirectUri: `${config.publicUrl}/`,
    },
    map: { tileUrl: config.TILE_URL, tileAttribution: config.TILE_ATTRIBUTION },
  };
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/config',
    {
      schema: {
        summary: 'Runtime settings of the web app (product name, sign-in, map tiles)',
        tags: ['config'],
        response: { 200: publicConfigSchema },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-cache');
      return body;
    },
  );
}
