/**
 * What the notification worker (`public/push-sw.js`) needs to renew this browser's subscription by itself when the
 * push service rotates it (`pushsubscriptionchange`, with no page open): per race, the runners and language last
 * sent to the server, and the endpoint they were sent with. Kept in IndexedDB (the worker has no localStorage);
 * push-sw.js reads the same database, store and keys — keep them in step.
 */

export const PUSH_DB = 'racebeacon-push';
export const PUSH_STORE = 'kv';
/** The endpoint the server knows this browser by. */
export const ENDPOINT_KEY = 'endpoint';
/** `race:{raceId}` → PushRaceRecord. */
export const raceKey = (raceId: number) => `race:${raceId}`;

export interface PushRaceRecord {
  RaceId: number;
  RunnerIds: number[];
  Locale: string;
}

function openDb(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(PUSH_DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(PUSH_STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB open failed'));
  });
}

async function write(change: (store: IDBObjectStore) => void): Promise<void> {
  const db = await openDb();
  try {
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction(PUSH_STORE, 'readwrite');
      change(tx.objectStore(PUSH_STORE));
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('IndexedDB write failed'));
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted'));
    });
  } finally {
    db.close();
  }
}

/**
 * The server now has this subscription for the race. Storage refused (a private window, storage disabled): the
 * notifications still work; only a rotation by the push service will not be followed.
 */
export async function rememberPushRace(endpoint: string, record: PushRaceRecord): Promise<void> {
  try {
    await write((store) => {
      store.put(endpoint, ENDPOINT_KEY);
      store.put(record, raceKey(record.RaceId));
    });
  } catch (err) {
    console.warn('Could not keep the notification settings for the worker:', err);
  }
}

export async function forgetPushRace(raceId: number): Promise<void> {
  try {
    await write((store) => store.delete(raceKey(raceId)));
  } catch (err) {
    console.warn('Could not keep the notification settings for the worker:', err);
  }
}
