/** MapShare raw KML as Garmin sends it (share.garmin.com/Feed/Share/{name}): messages, then the track. */

export interface KmlMessage {
  id: number;
  at: Date;
  lat: number;
  lon: number;
  ele?: number;
  kmh?: number;
  emergency?: boolean;
  text?: string;
  event?: string;
  validFix?: boolean;
}

/** "10/9/2025 8:50:00 AM": Garmin's Time UTC (US style). */
function usTime(d: Date): string {
  const h = d.getUTCHours();
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()} ${h % 12 || 12}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())} ${h < 12 ? 'AM' : 'PM'}`;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function placemark(name: string, m: KmlMessage): string {
  const data = (k: string, v: string) =>
    `          <Data name="${k}">\n            <value>${esc(v)}</value>\n          </Data>`;
  return `      <Placemark>
        <name>${esc(name)}</name>
        <visibility>1</visibility>
        <description></description>
        <TimeStamp>
          <when>${m.at.toISOString().replace('.000Z', 'Z')}</when>
        </TimeStamp>
        <styleUrl>#style_2231</styleUrl>
        <ExtendedData>
${[
  data('Id', String(m.id)),
  data('Time UTC', usTime(m.at)),
  data('Time', usTime(new Date(m.at.getTime() + 2 * 3600_000))),
  data('Name', name),
  data('Map Display Name', name),
  data('Device Type', 'inReach Mini 2'),
  data('IMEI', '300434060123450'),
  data('Incident Id', ''),
  data('Latitude', m.lat.toFixed(6)),
  data('Longitude', m.lon.toFixed(6)),
  data('Elevation', `${(m.ele ?? 1732).toFixed(2)} m from MSL`),
  data('Velocity', `${(m.kmh ?? 0).toFixed(1)} km/h`),
  data('Course', '212.00 ° True'),
  data('Valid GPS Fix', m.validFix === false ? 'False' : 'True'),
  data('In Emergency', m.emergency ? 'True' : 'False'),
  data('Text', m.text ?? ''),
  data('Event', m.event ?? (m.emergency ? 'Emergency initiated from device.' : 'Tracking message received.')),
  data('Device Identifier', ''),
  data('SpatialRefSystem', 'WGS84'),
].join('\n')}
        </ExtendedData>
        <Point>
          <extrude>false</extrude>
          <altitudeMode>absolute</altitudeMode>
          <coordinates>${m.lon.toFixed(6)},${m.lat.toFixed(6)},${(m.ele ?? 1732).toFixed(2)}</coordinates>
        </Point>
      </Placemark>`;
}

export function mapShareKml(name: string, messages: KmlMessage[]): string {
  const track = messages.map((m) => `${m.lon},${m.lat},${m.ele ?? 1732}`).join(' ');
  return `<?xml version="1.0" encoding="utf-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2">
  <Document>
    <name>KML Export ${usTime(new Date())}</name>
    <Style id="style_2231">
      <IconStyle>
        <Icon>
          <href>https://share.garmin.com/Content/Images/Google/ic_mapshare_blue_box.png</href>
        </Icon>
      </IconStyle>
    </Style>
    <Style id="linestyle_2231"><LineStyle><color>ff3c14dc</color><width>2</width></LineStyle></Style>
    <Folder>
      <name>${esc(name)}</name>
${messages.map((m) => placemark(name, m)).join('\n')}
${
  messages.length
    ? `      <Placemark>
        <name>${esc(name)}</name>
        <visibility>1</visibility>
        <description>inReach Mini 2 track log</description>
        <styleUrl>#linestyle_2231</styleUrl>
        <LineString>
          <tessellate>true</tessellate>
          <coordinates>${track}</coordinates>
        </LineString>
      </Placemark>`
    : ''
}
    </Folder>
  </Document>
</kml>`;
}
