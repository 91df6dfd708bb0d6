import { describe, expect, it } from 'vitest';
import { seededRandom } from '../src/course';
import { decodeColumns, encodeColumns } from '../src/range-code';

/** Order-0 entropy of a column, in bytes (what an ideal coder that knew the column's statistics would spend). */
function entropyBytes(values: readonly number[]): number {
  const n = new Map<number, number>();
  for (const v of values) n.set(v, (n.get(v) ?? 0) + 1);
  let bits = 0;
  for (const k of n.values()) bits -= k * Math.log2(k / values.length);
  return bits / 8;
}

/** A Laplace-like integer of scale s (what the codec's differences from a prediction look like). */
const laplace = (random: () => number, s: number) => {
  const u = random() - 0.5;
  return Math.round(-s * Math.sign(u) * Math.log(1 - 2 * Math.abs(u))) || 0; // no -0
};

describe('range-coded columns', () => {
  it('decodes to exactly the columns given: random ones, empty ones, none, and the extremes of safe integers', () => {
    const random = seededRandom(7);
    for (let t = 0; t < 200; t++) {
      const columns = Array.from({ length: Math.floor(random() * 6) }, () =>
        Array.from({ length: Math.floor(random() * 300) }, () => {
          const r = random();
          if (r < 0.3) return 0;
          if (r < 0.4) return 12345;
          if (r < 0.9) return laplace(random, 2 ** (random() * 10));
          return Math.round((random() - 0.5) * 2 ** (random() * 52)) || 0;
        }),
      );
      expect(decodeColumns(encodeColumns(columns))).toEqual(columns);
    }
    const extremes = [
      [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1, -1, 2 ** 32, -(2 ** 32), 0],
      [],
      [0],
    ];
    expect(decodeColumns(encodeColumns(extremes))).toEqual(extremes);
    expect(decodeColumns(encodeColumns([]))).toEqual([]);
  });

  it('refuses what is not a safe integer', () => {
    expect(() => encodeColumns([[1.5]])).toThrow(/not a safe integer/);
    expect(() => encodeColumns([[2 ** 60]])).toThrow(/not a safe integer/);
  });

  it('is plain base64 text (a JSON string needs no escapes)', () => {
    expect(encodeColumns([[1, 2, 3, -400, 0, 0]])).toMatch(/^[A-Za-z0-9+/]*$/);
  });

  it('spends about the information a column holds: within 10 % of its entropy, plus a few bytes', () => {
    const random = seededRandom(11);
    // A column of differences from a prediction: mostly 0, ±1 (an ETA range's ends).
    const small = Array.from({ length: 2500 }, () => (random() < 0.7 ? 0 : laplace(random, 1.2)));
    // GPS noise of about 10 units either way (a fix's offset from the course).
    const noise = Array.from({ length: 2500 }, () => laplace(random, 8));
    // One large value, repeated (a time shared by a column).
    const repeated = Array.from({ length: 300 }, () => 1_764_000_123);
    for (const column of [small, noise]) {
      const coded = (encodeColumns([column]).length * 6) / 8;
      expect(coded).toBeLessThan(entropyBytes(column) * 1.1 + 16);
      expect(coded).toBeGreaterThan(entropyBytes(column) * 0.9);
    }
    expect(encodeColumns([repeated]).length).toBeLessThan(40);
    expect(encodeColumns([Array(2500).fill(0)]).length).toBeLessThan(24);
  });
});
