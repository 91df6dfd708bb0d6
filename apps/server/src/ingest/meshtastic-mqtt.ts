import mqtt, { type MqttClient } from 'mqtt';
import type { FastifyBaseLogger } from 'fastify';
import { meshtasticBatch, nodeIds, parseMeshtastic } from './adapters/meshtastic';
import type { DeviceRef } from './types';

/** A Meshtastic text packet: {id, from, type: "text", payload: {text}} (or payload as the text itself). */
export function meshtasticText(json: string): { dedupKey: string; device: DeviceRef; text: string } | null {
  let m: { id?: unknown; from?: unknown; type?: unknown; payload?: unknown };
  try {
    m = JSON.parse(json) as typeof m;
  } catch {
    return null;
  }
  if (!m || typeof m !== 'object' || m.type !== 'text' || typeof m.from !== 'number') return null;
  const p = m.payload;
  const text =
    typeof p === 'string' ? p : p && typeof p === 'object' ? (p as { text?: unknown }).text : undefined;
  if (typeof text !== 'string' || !text) return null;
  const ids = nodeIds(m.from);
  return { dedupKey: `${ids[0]}:${String(m.id)}`, device: { source: 'meshtastic', hardwareIds: ids }, text };
}
import type { IngestService } from './service';

export interface MeshtasticOptions {
  url: string;
  topic: string;
  service: IngestService;
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
 * Positions and device-metrics telemetry (a battery-only report) go through the ingest service like any source's.
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

  /** A text message (`type: "text"`) may carry the claim code of a runner's own tracker waiting for proof. */
  private async claimText(json: string) {
    const m = meshtasticText(json);
    if (m && this.seen.add(m.dedupKey)) await this.opts.service.claimText(m.device, m.text);
  }

  private async handle(text: string) {
    const { service, log } = this.opts;
    try {
      const m = parseMeshtastic(text);
      if (m.kind === 'unreadable') {
        // Nothing to answer on MQTT: the log says why a message on our topic was not read.
        log.warn({ reason: m.reason, bytes: text.length }, 'Meshtastic message unreadable');
        return;
      }
      if (m.kind === 'ignored') return await this.claimText(text);
      if (!this.seen.add(m.dedupKey)) return;
      const read = meshtasticBatch(m);
      if (!read.ok) return;
      const result = await service.acceptEach('meshtastic', read.batch);
      // A mesh carries many packets of no use here (no fix yet, no time): only storage failures are worth a warning.
      const skipped = service.skipped(read.batch, result);
      if (skipped) log[skipped.failed.length ? 'warn' : 'debug'](skipped, 'Meshtastic packet skipped');
    } catch (err) {
      log.warn({ err }, 'Meshtastic message failed');
    }
  }
}
