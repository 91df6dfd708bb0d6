import { describe, expect, it } from 'vitest';
import { reconnectDelay } from './use-alert-stream';

describe('reconnectDelay', () => {
  it('doubles from 1 s up to 30 s, with ±25 % jitter', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 10].map((n) => reconnectDelay(n, 0.5))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
    expect(reconnectDelay(1, 0)).toBe(750);
    expect(reconnectDelay(1, 1)).toBe(1_250);
  });
});
