import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as constants from '../src/constants';
import * as domain from '../src';
import {
  adminDeviceSchema,
  DEVICE_SOURCES,
  deviceSchema,
  raceSchema,
  runnerSchema,
  publicRunnerSchema,
  type Race,
} from '../src/entities';
import { deviceCreateSchema, validationMessage } from '../src/schemas';

const race: Race = {
  RaceId: 1,
  Name: 'Desert 100',
  Description: '',
  Location: 'Moab',
  StartTime: '2027-03-20T09:15:00.000Z',
  HasStarted: false,
  HasFinished: false,
  Approved: true,
  DirectorId: 'u1',
  ClockStartedAt: null,
  ClockStoppedAt: null,
};

describe('entities', () => {
  it('a response keeps only the listed fields, so nothing else can leak', () => {
    expect(raceSchema.parse({ ...race, Secret: 'x' })).toEqual(race);
    const device = {
      DeviceId: 3,
      Name: 'Tracker 3',
      BatteryState: null,
      LastPingTime: null,
      RaceId: null,
      AssignedRunnerId: null,
      Source: 'spot',
      HardwareId: '0-2468013',
    };
    const admin = { ...device, TrackingKey: 'k', RaceName: null, RunnerName: null };
    expect(deviceSchema.parse(admin)).toEqual(device);
    expect(adminDeviceSchema.parse(admin)).toEqual(admin);
  });

  it('the public runner is the director’s runner without the device and the privacy choice', () => {
    const publicKeys = Object.keys(publicRunnerSchema.shape);
    expect(Object.keys(runnerSchema.shape)).toEqual([
      ...publicKeys,
      'DeviceId',
      'DeviceName',
      'HidePosition',
    ]);
  });

  it('the device source list is the one the schemas check', () => {
    expect(deviceSchema.shape.Source.options).toEqual([...DEVICE_SOURCES]);
    expect(deviceCreateSchema.shape.Source.unwrap().unwrap().options).toEqual([...DEVICE_SOURCES]);
    expect(domain.DEVICE_SOURCES).toBe(constants.DEVICE_SOURCES);
  });
});

describe('validationMessage', () => {
  it('words a refusal as the API does: "Field: rule", joined by "; "', () => {
    const r = z
      .object({ a: z.string().min(1, 'too short'), b: z.object({ c: z.number({ error: 'not a number' }) }) })
      .safeParse({ a: '', b: { c: 'x' } });
    expect(validationMessage(r.error!.issues)).toBe('a: too short; b.c: not a number');
    expect(validationMessage([{ path: [], message: 'whole body' }])).toBe('whole body');
    expect(validationMessage([])).toBe('Invalid request.');
  });
});
