import { elevationProfile, pointAtDistance, type CourseTrack, type PreparedCourse } from '@racebeacon/domain';

const MAX_LINE_POINTS = 2000;
const PROFILE_SAMPLES = 300;
const MAX_KM_MARKERS = 200;

/** The course as the live map and elevation profile draw it, thinned for a browser. */
export function courseTrack(course: PreparedCourse | null): CourseTrack {
  if (!course) {
    return {
      HasCourse: false,
      LengthM: 0,
      Line: [],
      KmMarkers: [],
      Waypoints: [],
      HasElevation: false,
      Profile: [],
    };
  }
  const n = course.lat.length;
  const step = Math.max(1, Math.ceil(n / MAX_LINE_POINTS));
  const Line: [number, number][] = [];
  for (let i = 0; i < n; i += step) Line.push([round6(course.lat[i]), round6(course.lon[i])]);
  if ((n - 1) % step !== 0) Line.push([round6(course.lat[n - 1]), round6(course.lon[n - 1])]);

  // One marker per km, or per 5/10 km on very long courses so the map stays readable.
  const km = course.lengthM / 1000;
  const every = km <= MAX_KM_MARKERS ? 1 : Math.ceil(km / MAX_KM_MARKERS / 5) * 5;
  const KmMarkers: CourseTrack['KmMarkers'] = [];
  for (let k = every; k < km; k += every) {
    const p = pointAtDistance(course, k * 1000);
    KmMarkers.push({ Km: k, Latitude: round6(p.lat), Longitude: round6(p.lon) });
  }
  return {
    HasCourse: true,
    LengthM: Math.round(course.lengthM),
    Line,
    KmMarkers,
    Waypoints: course.waypoints.map((w) => ({
      Name: w.name,
      Latitude: w.lat,
      Longitude: w.lon,
      DistanceM: Math.round(w.distanceM),
    })),
    HasElevation: course.hasElevation,
    Profile: course.hasElevation
      ? elevationProfile(course, PROFILE_SAMPLES)
          .filter((p) => p.ele !== null)
          .map((p) => [Math.round(p.distanceM), Math.round(p.ele! * 10) / 10] as [number, number])
      : [],
  };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
