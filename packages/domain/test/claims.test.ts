import { describe, expect, it } from 'vitest';
import { groupsFromClaim } from '../src/claims';

describe('groupsFromClaim', () => {
  it.each([
    [
      ['g-admin', 'g-other'],
      ['g-admin', 'g-other'],
    ],
    [
      [' g-admin ', '', 7],
      ['g-admin', '7'],
    ],
    ['g-admin', ['g-admin']],
    ['g-admin,g-other', ['g-admin', 'g-other']],
    ['g-admin g-other', ['g-admin', 'g-other']],
    [' g-admin ,  g-other\tg-third ', ['g-admin', 'g-other', 'g-third']],
    ['', []],
    [undefined, []],
    [null, []],
    [42, []],
    [{ g: 'g-admin' }, []],
    [[{ g: 'g-admin' }, null], []],
  ])('%j → %j', (claim, groups) => {
    expect(groupsFromClaim(claim)).toEqual(groups);
  });
});
