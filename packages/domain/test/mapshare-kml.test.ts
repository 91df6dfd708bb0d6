import { describe, expect, it } from 'vitest';
import {
  attachTrackerBodySchema,
  leadingNumber,
  MapShareKmlError,
  parseGarminUsTime,
  parseMapShareKml,
  trackerProblem,
} from '../src/index';

/** A MapShare raw KML feed as Garmin sends it: two messages, then the track LineString. */
const FEED = `<?xml version="1.0" encoding="utf-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
  <Document>
    <name>KML Export 10/9/2025 9:21:14 AM</name>
    <Style id="style_1411"><IconStyle><Icon><href>https://share.garmin.com/Content/Images/Google/ic_mapshare_blue_box.png</href></Icon></IconStyle></Style>
    <Folder>
      <name>Ada Runner</name>
      <Placemark>
        <name>Ada Runner</name>
        <visibility>1</visibility>
        <description></description>
        <TimeStamp><when>2025-10-09T08:50:00Z</when></TimeStamp>
        <styleUrl>#style_1411</styleUrl>
        <ExtendedData>
          <Data name="Id"><value>98765432</value></Data>
          <Data name="Time UTC"><value>10/9/2025 8:50:00 AM</value></Data>
          <Data name="Time"><value>10/9/2025 10:50:00 AM</value></Data>
          <Data name="Name"><value>Ada Runner</value></Data>
          <Data name="Map Display Name"><value>Ada Runner</value></Data>
          <Data name="Device Type"><value>inReach Mini 2</value></Data>
          <Data name="IMEI"><value>300434060123450</value></Data>
          <Data name="Incident Id"><value></value></Data>
          <Data name="Latitude"><value>46.558100</value></Data>
          <Data name="Longitude"><value>7.911200</value></Data>
          <Data name="Elevation"><value>1732.00 m from MSL</value></Data>
          <Data name="Velocity"><value>5.0 km/h</value></Data>
          <Data name="Course"><value>212.00 ° True</value></Data>
          <Data name="Valid GPS Fix"><value>True</value></Data>
          <Data name="In Emergency"><value>False</value></Data>
          <Data name="Text"><value></value></Data>
          <Data name="Event"><value>Tracking message received.</value></Data>
          <Data name="Device Identifier"><value></value></Data>
          <Data name="SpatialRefSystem"><value>WGS84</value></Data>
        </ExtendedData>
        <Point><extrude>false</extrude><altitudeMode>absolute</altitudeMode><coordinates>7.911200,46.558100,1732.00</coordinates></Point>
      </Placemark>
      <Placemark>
        <name>Ada Runner</name>
        <TimeStamp><when>2025-10-09T09:00:00Z</when></TimeStamp>
        <ExtendedData>
          <Data name="Id"><value>98765433</value></Data>
          <Data name="Time UTC"><value>10/9/2025 9:00:00 AM</value></Data>
          <Data name="IMEI"><value>300434060123450</value></Data>
          <Data name="Latitude"><value>46.562000</value></Data>
          <Data name="Longitude"><value>7.920000</value></Data>
          <Data name="Elevation"><value>1805.50 m from MSL</value></Data>
          <Data name="Velocity"><value>0.0 km/h</value></Data>
          <Data name="Valid GPS Fix"><value>True</value></Data>
          <Data name="In Emergency"><value>True</value></Data>
          <Data name="Text"><value>Fell, ankle broken &amp; cold</value></Data>
          <Data name="Event"><value>Emergency initiated from device.</value></Data>
        </ExtendedData>
        <Point><coordinates>7.920000,46.562000,1805.50</coordinates></Point>
      </Placemark>
      <Placemark>
        <name>Ada Runner</name>
        <description>inReach Mini 2 track log</description>
        <styleUrl>#linestyle_1411</styleUrl>
        <LineString><tessellate>true</tessellate><coordinates>7.9112,46.5581,1732 7.92,46.562,1805.5</coordinates></LineString>
      </Placemark>
    </Folder>
  </Document>
</kml>`;

describe('MapShare KML', () => {
  it('reads the messages as Garmin sends them and skips the track LineString', () => {
    const { records, rejected } = parseMapShareKml(FEED);
    expect(rejected).toEqual([]);
    expect(records).toHaveLength(2);
    expect(records[0]).toEqual({
      id: '98765432',
      time: new Date('2025-10-09T08:50:00Z'),
      timeText: '2025-10-09T08:50:00Z',
      lat: 46.5581,
      lon: 7.9112,
      elevationM: 1732,
      velocityKmh: 5,
      courseDeg: 212,
      event: 'Tracking message received.',
      imei: '300434060123450',
      text: null,
      inEmergency: false,
      validFix: true,
    });
    expect(records[1]).toMatchObject({
      inEmergency: true,
      text: 'Fell, ankle broken & cold',
      elevationM: 1805.5,
      event: 'Emergency initiated from device.',
    });
  });

  it('falls back to "Time UTC" and the Point when <when> and Latitude/Longitude are missing', () => {
    const kml = `<kml><Document><Placemark><ExtendedData>
      <Data name="Time UTC"><value>10/9/2025 1:05:30 PM</value></Data>
      <Data name="Valid GPS Fix"><value>False</value></Data>
    </ExtendedData><Point><coordinates>-122.5,45.25,12</coordinates></Point></Placemark></Document></kml>`;
    const [r] = parseMapShareKml(kml).records;
    expect(r.time).toEqual(new Date('2025-10-09T13:05:30Z'));
    expect([r.lat, r.lon, r.elevationM, r.validFix]).toEqual([45.25, -122.5, 12, false]);
  });

  it('an empty feed (no placemarks, or an empty body) has no records', () => {
    expect(parseMapShareKml('<?xml version="1.0"?><kml><Document/></kml>').records).toEqual([]);
    expect(parseMapShareKml('').records).toEqual([]);
  });

  it.each([
    ['<html><body>Sign in</body></html>', /root element <html>/],
    ['<kml><Document>', /not well-formed/],
    ['<!DOCTYPE kml [<!ENTITY x "y">]><kml/>', /DOCTYPE/],
  ])('refuses %s', (xml, message) => {
    expect(() => parseMapShareKml(xml)).toThrow(MapShareKmlError);
    expect(() => parseMapShareKml(xml)).toThrow(message);
  });

  it('keeps a placemark with an unreadable time, listed as rejected', () => {
    const kml = `<kml><Placemark><ExtendedData><Data name="Time UTC"><value>yesterday</value></Data>
      <Data name="Latitude"><value>1</value></Data></ExtendedData></Placemark></kml>`;
    const feed = parseMapShareKml(kml);
    expect(feed.records[0].time).toBeNull();
    expect(feed.rejected).toEqual([{ index: 0, reason: 'unreadable time yesterday' }]);
  });

  it.each([
    ['1732.00 m from MSL', 1732],
    ['-12.5 m from MSL', -12.5],
    ['5,5 km/h', 5.5],
    ['', null],
    ['n/a', null],
    [undefined, null],
  ])('leadingNumber(%s) = %s', (text, n) => expect(leadingNumber(text)).toBe(n));

  it.each([
    ['10/9/2025 8:50:00 AM', '2025-10-09T08:50:00.000Z'],
    ['10/9/2025 12:05:00 AM', '2025-10-09T00:05:00.000Z'],
    ['10/9/2025 12:05:00 PM', '2025-10-09T12:05:00.000Z'],
    ['1/31/2026 11:59:59 PM', '2026-01-31T23:59:59.000Z'],
    ['2/30/2026 1:00:00 PM', null],
    ['13/1/2026 1:00:00 PM', null],
    ['10/9/2025 13:00:00 PM', null],
    ['2025-10-09', null],
  ])('parseGarminUsTime(%s)', (text, iso) =>
    expect(parseGarminUsTime(text)?.toISOString() ?? null).toBe(iso),
  );
});

describe('runner trackers', () => {
  it.each([
    [{ Source: 'mapshare', HardwareId: 'AdaRunner', FeedId: null }, null],
    [{ Source: 'mapshare', HardwareId: null, FeedId: null }, /MapShare name is required/],
    [{ Source: 'mapshare', HardwareId: 'ada runner/x', FeedId: null }, /only letters/],
    [{ Source: 'mapshare', HardwareId: 'Ada', FeedId: 'X1' }, /has no feed id/],
    [{ Source: 'spot', HardwareId: null, FeedId: '0abcDEF' }, null],
    [{ Source: 'inreach', HardwareId: '300434060123450', FeedId: '0abc' }, /only a SPOT or MapShare/],
  ])('trackerProblem(%o)', (t, problem) => {
    const p = trackerProblem(t);
    if (problem === null) expect(p).toBeNull();
    else expect(p).toMatch(problem);
  });

  it.each([
    [{ Source: 'mapshare', HardwareId: 'AdaRunner', FeedPassword: 'pw' }, true],
    [{ Source: 'spot', FeedId: '0onLqaBcD' }, true],
    [{ Source: 'spot' }, false],
    [{ Source: 'osmand' }, true],
    [{ Source: 'inreach' }, false],
    [{ Source: 'spot', FeedId: 'not a feed' }, false],
    [{ Source: 'garmin', HardwareId: 'x' }, false],
    [{ Source: 'mapshare', HardwareId: 'x', FeedPassword: 'p'.repeat(201) }, false],
  ])('attach body %o valid: %s', (body, ok) => {
    expect(attachTrackerBodySchema.safeParse(body).success).toBe(ok);
  });
});
