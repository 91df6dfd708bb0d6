export type {
  CourseTrack,
  LiveSnapshot as SnapshotMessage,
  LiveUpdate as UpdateMessage,
  TrailPoint,
} from '@racebeacon/domain/live';
