/**
 * Live race domain: course preparation and geometry, matching fixes to the course, runner race state, and the
 * leaderboard. Pure (no I/O): the server and the browser call the same functions.
 */
export * from './types';
export {
  prepareCourse,
  pointAtDistance,
  elevationProfile,
  courseCandidates,
  nearestOnCourse,
  type CourseCandidate,
} from './geometry';
export { computeRunnerState, addFix, refreshRunnerState, emptyRunnerState, sortFixes } from './matching';
export { buildLeaderboard, filterLeaderboard, parseAgeGroup, AGE_GROUPS } from './leaderboard';
export {
  etaRange,
  flatEtaMs,
  distanceAt,
  effortAt,
  minettiCost,
  paceModel,
  type EtaRange,
  type PaceModel,
} from './eta';
export { estimatePosition, trackingRowFields, type PositionEstimate } from './estimate';
export {
  passingTime,
  runnerSplits,
  lastCheckpointPassed,
  sectionPaces,
  type CheckpointKind,
  type SplitCheckpoint,
  type CheckinPassing,
  type RunnerSplit,
  type SectionPace,
} from './splits';
export { etaAtDistance, cutoffRisk, type CutoffRisk, type EtaTerrain } from './cutoffs';
export { RunnerTimeline, type TimelineState, type ReplayAnswer } from './replay';
export {
  flowSeries,
  thinPolyline,
  maxDeviation,
  type FlowPoint,
  type FlowSeriesOptions,
  type FlowRunner,
  type FlowCheckpoint,
  type FlowAnswer,
} from './flow';
export {
  seededRandom,
  gaussian,
  courseFromMetres,
  polylineMetres,
  outAndBackCourse,
  lapCourse,
  figureEightCourse,
  switchbackCourse,
  lollipopCourse,
  sharedRoadLapCourse,
  hillyCourse,
  simulateHillRunner,
  windingCourse,
  simulateRunner,
  type SimulatedRunner,
  type SimulatedRunnerOptions,
  type SimulatedFix,
} from './synthetic';
