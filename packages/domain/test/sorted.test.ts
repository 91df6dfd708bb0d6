import { describe, expect, it } from 'vitest';
import { bracketIndex } from '../src/sorted';

describe('bracketIndex', () => {
  const v = [0, 10, 20, 30];
  it('finds the bracket holding x, a value on a boundary opening the bracket after it', () => {
    expect(bracketIndex(v, 5)).toBe(0);
    expect(bracketIndex(v, 10)).toBe(1);
    expect(bracketIndex(v, 29.9)).toBe(2);
  });
  it('clamps to the first and last bracket outside the values', () => {
    expect(bracketIndex(v, -3)).toBe(0);
    expect(bracketIndex(v, 30)).toBe(2);
    expect(bracketIndex(v, 99)).toBe(2);
    expect(bracketIndex(new Float64Array([1, 2]), 1.5)).toBe(0);
  });
});
