import type { AlertInput, BatteryReport, DeviceRef, FixInput } from '../types';

/**
 * The contract every device protocol's adapter keeps: it reads what a device (or its network server, or a feed)
 * sent into one batch — positions, alerts and battery levels that came without a position — or says, with a typed
 * parse error, why the request cannot be read. Adapters never throw for bad input, never answer HTTP, and never
 * check values against the store (the pipeline does that, once per fix).
 */
export interface DeviceBatch {
  fixes: FixInput[];
  alerts: AlertInput[];
  batteryOnly: BatteryReport[];
  /** Messages of a multi-message input (an inReach batch, a SPOT page) that could not be read, for the log. */
  rejected: { index: number; reason: string }[];
  /**
   * Free-text messages (kind `message`: an inReach text), not stored and not counted as alerts: race HQ reads them
   * for the race's help keyword (IngestPipeline.recordText).
   */
  texts?: AlertInput[];
  /** How many messages the input held (a SPOT page is paged on this). */
  received: number;
  /**
   * Devices that sent a data uplink without a position (a LoRaWAN payload formatter that gives none, a Meshtastic
   * position packet without a fix): answered as any uplink, counted on the device (`LastUplinkWithoutPositionAt`).
   */
  withoutPosition?: DeviceRef[];
}

export type ParseErrorCode =
  /** No device id in the request. */
  | 'missing_device_id'
  /** A device id no device can have (a NUL byte, an absurd length). */
  | 'invalid_device_id'
  /** The request names a device but carries no readable position. */
  | 'invalid_position'
  /** The source itself reported an error (a SPOT feed that does not exist). */
  | 'source_error'
  /** The body cannot be read at all (truncated or not JSON, not the protocol's shape): refused and logged. */
  | 'unreadable_body';

export interface ParseError {
  code: ParseErrorCode;
  message: string;
}

export type AdapterResult = { ok: true; batch: DeviceBatch } | { ok: false; error: ParseError };

/** A batch read (missing parts empty; `received` defaults to the number of fixes). */
export function readBatch(parts: Partial<DeviceBatch>): AdapterResult {
  const batch: DeviceBatch = {
    fixes: [],
    alerts: [],
    batteryOnly: [],
    rejected: [],
    received: parts.received ?? parts.fixes?.length ?? 0,
    ...parts,
  };
  return { ok: true, batch };
}

export function parseError(code: ParseErrorCode, message: string): AdapterResult {
  return { ok: false, error: { code, message } };
}

/** A parse error thrown, for callers that want an exception rather than a result; `statusCode` is its 4xx. */
export class IngestParseError extends Error {
  readonly statusCode = 400;
  readonly code: ParseErrorCode;
  constructor(error: ParseError) {
    super(error.message);
    this.code = error.code;
  }
}

/** The batch of a result, or its parse error thrown as an IngestParseError. */
export function batchOrThrow(result: AdapterResult): DeviceBatch {
  if (!result.ok) throw new IngestParseError(result.error);
  return result.batch;
}
