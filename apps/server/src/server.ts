import type { FastifyInstance } from 'fastify';
import { buildApp } from './app';
import { ConfigError, loadConfig } from './config';

/**
 * A stop (SIGTERM, SIGINT) that takes longer than this ends the process anyway, with exit code 1: orchestrators
 * kill at 10 s (Docker's and compose's default grace period), so the log says why before they do.
 */
const STOP_DEADLINE_MS = 9_000;

/**
 * Starts the server and stops it gracefully. On SIGTERM or SIGINT: the listener closes (new connections are
 * refused, a new request on a kept-alive connection gets 503 so a load balancer retries it elsewhere), live
 * viewers' streams end (they reconnect, to another process behind a balancer), requests in flight are answered,
 * then the plugins' onClose hooks run (ingest batch flushed, pollers and the MQTT subscriber stopped, event bus and
 * database closed) and the process exits 0. Past the deadline it exits anyway, with code 1.
 */
async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }

  // Set once listening: from then on a signal closes it at once.
  let app: FastifyInstance | undefined = undefined;
  let stopSignal: NodeJS.Signals | undefined;
  const say = (level: 'warn' | 'error', msg: string) => (app ? app.log[level](msg) : console[level](msg));
  const stop = (signal: NodeJS.Signals) => {
    // Already stopping: the deadline bounds it. (A repeat is common: in a terminal, Ctrl-C under `npm start`
    // reaches the server from the terminal and again from npm, which forwards it.)
    if (stopSignal) return say('warn', `${signal} while stopping: still stopping`);
    stopSignal = signal;
    const deadline = setTimeout(() => {
      say('error', `still stopping after ${STOP_DEADLINE_MS} ms: exiting anyway`);
      process.exit(1);
    }, STOP_DEADLINE_MS);
    deadline.unref();
    // Still starting: main() closes the app once it is up.
    if (app) void close(app, signal);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  const starting = await buildApp({ config });
  if (!stopSignal) await starting.listen({ port: config.PORT, host: config.HOST });
  app = starting;
  if (stopSignal) return close(app, stopSignal);
  app.log.info(`${config.PRODUCT_NAME} is running at ${config.publicUrl}`);
}

async function close(app: FastifyInstance, signal: NodeJS.Signals) {
  app.log.info({ signal }, 'stopping: no new connections, answering requests in flight');
  const started = Date.now();
  // A kept-alive connection that goes idle after its last answer would hold the listener open until its
  // keep-alive timeout: close such connections as they go idle (busy ones are left to finish).
  const sweep = setInterval(() => app.server.closeIdleConnections(), 100);
  sweep.unref();
  try {
    await app.close();
  } catch (err) {
    app.log.error({ err }, 'error while stopping');
    process.exit(1);
  }
  app.log.info({ ms: Date.now() - started }, 'stopped');
  process.exit(0);
}

void main();
