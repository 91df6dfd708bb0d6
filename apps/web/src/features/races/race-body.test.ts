import { describe, expect, it } from 'vitest';
import { checkedRaceBody } from './race-body';

const fields = { Name: '  Desert 100 ', Description: 'Long.', Location: 'Moab', StartTime: '' };

describe('the race form checks its body with the API’s race schema', () => {
  it('sends the trimmed name, the texts as typed and no start time when none is set', async () => {
    await expect(checkedRaceBody(fields)).resolves.toEqual({
      body: { Name: 'Desert 100', Description: 'Long.', Location: 'Moab', StartTime: null },
    });
  });

  it('sends the start time as an ISO instant', async () => {
    const { body } = await checkedRaceBody({ ...fields, StartTime: '2027-03-20T09:15' });
    expect(body?.StartTime).toBe(new Date('2027-03-20T09:15').toISOString());
  });

  it('refuses a blank name with the message the API would answer', async () => {
    await expect(checkedRaceBody({ ...fields, Name: '   ' })).resolves.toEqual({
      error: 'Name: Name is required',
    });
  });

  it('sends the privacy settings of the race editor: the delay, trails, and an empty retention as keep', async () => {
    const { body } = await checkedRaceBody({
      ...fields,
      PublicDelayMin: '10',
      TrailsPublic: false,
      RetentionDays: '',
    });
    expect(body).toMatchObject({ PublicDelayMin: 10, TrailsPublic: false, RetentionDays: null });
    const kept = await checkedRaceBody({
      ...fields,
      PublicDelayMin: '0',
      TrailsPublic: true,
      RetentionDays: '30',
    });
    expect(kept.body).toMatchObject({ PublicDelayMin: 0, TrailsPublic: true, RetentionDays: 30 });
  });

  it('refuses a public delay or retention out of range, naming the field', async () => {
    const delay = await checkedRaceBody({
      ...fields,
      PublicDelayMin: '1441',
      TrailsPublic: true,
      RetentionDays: '',
    });
    expect(delay.error).toMatch(/^PublicDelayMin: /);
    const empty = await checkedRaceBody({
      ...fields,
      PublicDelayMin: '',
      TrailsPublic: true,
      RetentionDays: '',
    });
    expect(empty.error).toMatch(/^PublicDelayMin: /);
    const days = await checkedRaceBody({
      ...fields,
      PublicDelayMin: '0',
      TrailsPublic: true,
      RetentionDays: '-1',
    });
    expect(days.error).toMatch(/^RetentionDays: /);
  });

  it('refuses a start time outside 2000–2100 with the message the API would answer', async () => {
    const { error } = await checkedRaceBody({ ...fields, StartTime: '1999-06-01T10:00' });
    expect(error).toBe(
      'StartTime: must be an ISO 8601 date-time with an offset (Z or ±hh:mm), such as 2026-06-01T06:00:00Z, ' +
        'between the years 2000 and 2100',
    );
  });
});
