import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fp from 'fastify-plugin';
import './security-headers';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/**
 * OpenAPI document generated from the zod route schemas, browsable at /api/docs (JSON at /api/docs/json).
 * Must be registered before the routes: @fastify/swagger collects them as they are added.
 */
export default fp(
  async (app) => {
    await app.register(swagger, {
      openapi: {
        info: {
          title: `${app.config.PRODUCT_NAME} API`,
          description:
            'Public reads under /api/open (approved races only), director calls under /api/director (own races ' +
            'only), admin calls under /api/admin. Every 4xx has a JSON body { error, message }.',
          version: '1.0.0',
        },
        servers: [{ url: app.config.publicUrl }],
        components: {
          securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
        },
        tags: [
          { name: 'open', description: 'Anonymous' },
          { name: 'director', description: 'Signed-in director, own races only' },
          { name: 'admin', description: 'Members of the admin group' },
          {
            name: 'check-in',
            description: 'An aid-station volunteer: the check-in link’s token is the credential',
          },
        ],
      },
      transform: jsonSchemaTransform,
      // Schemas with an id (.meta({ id }): the domain's entities) become named components referenced by $ref.
      transformObject: jsonSchemaTransformObject,
    });
    await app.register(swaggerUi, {
      routePrefix: '/api/docs',
      // Swagger UI adds <style> elements at run time: its pages (developer docs, no user content) allow inline
      // styles; scripts stay 'self' only.
      uiHooks: {
        onRequest: (_request, reply, done) => {
          reply.securityHeaders({ inlineStyles: true });
          done();
        },
      },
    });
  },
  { name: 'openapi' },
);
