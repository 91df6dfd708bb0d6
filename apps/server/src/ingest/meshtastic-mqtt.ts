import mqtt, { type MqttClient } from 'mqtt';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { parseMeshtastic } from './adapters/meshtastic';
import type { IngestPipeline } from './pipeline';
import type { IngestRateLimiter } from './rate-limit';
import { updateBattery } from './battery-repository';

export interface MeshtasticOptions {
  url: string;
  topic: string;
  db: Db;
  pipeline: IngestPipeline;
  limiter: IngestRateLimiter;
  log: FastifyBaseLogger;
}

/** Remembers recently seen keys (several gateways relay the same packet). */
class RecentKeys {
  private readonly keys = new Map<string, true>();
  constructor(private readonly max: number) {}
  /** true the first time a key is seen. */
  add(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.set(key, true);
    if (this.keys.size > this.max) this.keys.delete(this.keys.keys().next().value as string);
    return true;
  }
}

/**
 * Meshtastic gateways publish every mesh packet they hear as JSON on `msh/<region>/2/json/<channel>/<gateway>`.
 * Positions go through the pipeline; device-metrics telemetry updates the node's battery.
 */
export class MeshtasticSubscriber {
  private client: MqttClient | null = null;
  private readonly seen = new RecentKeys(20_000);

  constructor(private readonly opts: MeshtasticOptions) {}

  /** Resolves once connected and subscribed (or rejects on the first failure; reconnects run on their own). */
  async start(): Promise<void> {
    const { url, topic, log } = this.opts;
    const client = mqtt.connect(url, { reconnectPeriod: 5000, connectTimeout: 10_000 });
    this.client = client;
    client.on('message', (_topic, payload) => void this.handle(payload.toString('utf8')));
    client.on('error', (err) => log.warn({ err: err.message }, 'MQTT error'));
    let ready: () => void = () => {};
    const subscribed = new Promise<void>((resolve) => (ready = resolve));
    // Subscribed again on every reconnect (clean sessions forget subscriptions).
    client.on('connect', () => {
      client.subscribe(topic, { qos: 0 }, (err) => {
        if (err) log.warn({ err: err.message, topic }, 'MQTT subscribe failed');
        else ready();
      });
    });
    // Wait for the first subscription, but never block the server's start on an unreachable broker.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([subscribed, new Promise<void>((r) => (timer = setTimeout(r, 5000)))]);
    clearTimeout(timer);
  }

  async stop() {
    const c = this.client;
    this.client = null;
    if (c) await c.endAsync(true).catch(() => {});
  }

  private async handle(text: string) {
    const { pipeline, limiter, db, log } = this.opts;
    try {
      const m = parseMeshtastic(text);
      if (m.kind === 'ignored' || !this.seen.add(m.dedupKey)) return;
      if (m.kind === 'position') {
        const ids = 'hardwareIds' in m.fix.device ? m.fix.device.hardwareIds : [];
        if (!limiter.allow('meshtastic', ids[0] ?? '')) return;
        const [out] = await pipeline.ingestMany([m.fix]);
        if (out.status === 'invalid') log.debug({ message: out.message }, 'Meshtastic position refused');
        else if (out.status === 'failed') log.warn({ err: out.error }, 'Meshtastic position not stored');
      } else {
        await updateBattery(db, 'meshtastic', m.hardwareIds, m.percent, m.state);
      }
    } catch (err) {
      log.warn({ err }, 'Meshtastic message failed');
    }
  }
}
