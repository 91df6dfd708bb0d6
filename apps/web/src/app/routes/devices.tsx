import { DevicesPage } from '../../features/devices/devices-page';
import { openRacesApi } from '../../features/races/api';

/** /add-device (admin): the devices screen, offered the approved races that have not started to put devices in. */
export function DevicesRoute() {
  return <DevicesPage assignableRaces={openRacesApi.notStarted} />;
}
