/**
 * A small, valid GPX track for browser tests: a straight line north with a steady climb, so the expected
 * length and climb are known (about 0.0449 degrees of latitude ≈ 5 km; +150 m).
 */
export function gpxTrack(opts: { name?: string; points?: number } = {}): Buffer {
  const n = opts.points ?? 51;
  const pts = Array.from({ length: n }, (_, i) => {
    const lat = 40 + (0.0449 * i) / (n - 1);
    const ele = 1600 + (150 * i) / (n - 1);
    return `<trkpt lat="${lat.toFixed(6)}" lon="-105.270000"><ele>${ele.toFixed(1)}</ele></trkpt>`;
  });
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="racebeacon-e2e" xmlns="http://www.topografix.com/GPX/1/1">
<trk><name>${opts.name ?? 'Ridge loop'}</name><trkseg>
${pts.join('\n')}
</trkseg></trk>
</gpx>
`,
  );
}
