import type { CheckinPage } from '@racebeacon/domain/checkin';
import { memoryStore, type EntryStore, type QueuedEntry } from './queue';

/**
 * The phone's storage for the volunteer page, in IndexedDB (database `racebeacon-checkin`): `entries` (the outbox,
 * by EntryId, indexed by link token) and `pages` (the last volunteer page read per token, so the page still shows
 * the checkpoint and the runners' names after a reload without network).
 */

const DB_NAME = 'racebeacon-checkin';
const VERSION = 1;

let opening: Promise<IDBDatabase> | null = null;

function openDb(): Promise<IDBDatabase> {
  opening ??= new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('entries')) {
        db.createObjectStore('entries', { keyPath: 'EntryId' }).createIndex('token', 'token');
      }
      if (!db.objectStoreNames.contains('pages')) db.createObjectStore('pages');
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB cannot be opened'));
    req.onblocked = () => reject(new Error('IndexedDB is blocked by another tab'));
  }).catch((err: unknown) => {
    opening = null;
    throw err;
  });
  return opening;
}

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

/** Resolves when the write transaction is committed (the entry survives a reload or a closed tab). */
function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB write failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted'));
  });
}

const idbEntries: EntryStore = {
  async list(token) {
    const db = await openDb();
    const index = db.transaction('entries', 'readonly').objectStore('entries').index('token');
    return request(index.getAll(token) as IDBRequest<QueuedEntry[]>);
  },
  async put(entry) {
    const db = await openDb();
    const tx = db.transaction('entries', 'readwrite');
    tx.objectStore('entries').put(entry);
    await committed(tx);
  },
};

/** IndexedDB when the browser has it (and lets this page use it), else memory for the page's life. */
export async function openEntryStore(): Promise<{ store: EntryStore; persistent: boolean }> {
  if (typeof indexedDB === 'undefined') return { store: memoryStore(), persistent: false };
  try {
    await openDb();
    return { store: idbEntries, persistent: true };
  } catch {
    return { store: memoryStore(), persistent: false };
  }
}

export async function savePage(token: string, page: CheckinPage): Promise<void> {
  try {
    const db = await openDb();
    const tx = db.transaction('pages', 'readwrite');
    tx.objectStore('pages').put(page, token);
    await committed(tx);
  } catch {
    // Nothing to keep it in: the page then needs the network after a reload.
  }
}

export async function loadSavedPage(token: string): Promise<CheckinPage | null> {
  try {
    const db = await openDb();
    const page = await request(db.transaction('pages', 'readonly').objectStore('pages').get(token));
    return (page as CheckinPage | undefined) ?? null;
  } catch {
    return null;
  }
}
