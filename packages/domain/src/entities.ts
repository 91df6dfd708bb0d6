/**
 * The API's entities, with the spec's PascalCase field names (seed-spec section 3).
 * Times are ISO 8601 strings with an offset; ids are positive integers.
 */

export type Gender = 'M' | 'F';

export interface Race {
  RaceId: number;
  Name: string;
  Description: string;
  Location: string;
  /** ISO 8601 with offset, or null when not set. */
  StartTime: string | null;
  HasStarted: boolean;
  HasFinished: boolean;
  Approved: boolean;
  DirectorId: string;
  /** Race clock: when timing began (StartTime if already past at Start, else the moment Start was pressed). */
  ClockStartedAt?: string | null;
  /** When the race was ended. */
  ClockStoppedAt?: string | null;
}

/** Runner as seen by the public: no device internals. */
export interface PublicRunner {
  RunnerId: number;
  RaceId: number;
  FirstName: string;
  LastName: string;
  BibNumber: string | null;
  Gender: Gender;
  Age: number | null;
}

/** Runner as seen by its race's director: adds the held device. */
export interface Runner extends PublicRunner {
  DeviceId: number | null;
  /** Name of the held device (director responses), so the director sees which tracker a runner carries. */
  DeviceName: string | null;
}

export interface Waypoint {
  Name: string;
  Latitude: number;
  Longitude: number;
  /** Distance along the course in metres, when projected. */
  DistanceM: number | null;
}

export interface Course {
  CourseId: number;
  RaceId: number;
  /** A working link that shows this course on a map. */
  MapUrl: string;
  Name: string | null;
  LengthM: number;
  ClimbM: number;
  DescentM: number;
  PointCount: number;
  HasElevation: boolean;
  Waypoints: Waypoint[];
  GeoJsonUrl: string;
  GpxUrl: string;
}

export const DEVICE_SOURCES = ['osmand', 'spot', 'inreach', 'lorawan', 'owntracks', 'meshtastic'] as const;
export type DeviceSource = (typeof DEVICE_SOURCES)[number];

export interface Device {
  DeviceId: number;
  Name: string;
  /** e.g. "87%", "GOOD", "LOW"; null when never reported. */
  BatteryState: string | null;
  LastPingTime: string | null;
  RaceId: number | null;
  AssignedRunnerId: number | null;
  Source: DeviceSource;
  HardwareId: string | null;
}

/** Admin view of a device: the only response that carries the tracking key. */
export interface AdminDevice extends Device {
  TrackingKey: string;
  RaceName: string | null;
  RunnerName: string | null;
}

/** Every 4xx/5xx body. */
export interface ApiError {
  error: string;
  message: string;
}
