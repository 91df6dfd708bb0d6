import { describe, expect, it } from 'vitest';
import { deviceCreateSchema, runnerBodySchema } from '../src';

describe('request schemas', () => {
  it('trims a device name and refuses an empty one', () => {
    expect(deviceCreateSchema.parse({ Name: '  Tracker 1 ' }).Name).toBe('Tracker 1');
    expect(deviceCreateSchema.safeParse({ Name: '   ' }).success).toBe(false);
  });
  it('defaults a runner to gender M and keeps bibs as strings', () => {
    const r = runnerBodySchema.parse({ FirstName: 'Ann', LastName: 'Lee', BibNumber: 12 });
    expect(r.Gender).toBe('M');
    expect(r.BibNumber).toBe('12');
    expect(runnerBodySchema.safeParse({ FirstName: 'A', LastName: 'B', Age: 121 }).success).toBe(false);
  });
});
