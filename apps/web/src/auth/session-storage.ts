/**
 * The browser's session storage, or a storage kept in memory for this page when the browser refuses it: a page
 * framed by another site (the embeddable race views) is denied storage when third-party storage is blocked, and
 * reading `window.sessionStorage` then throws. Sign-in does not work in such a frame; the page must still render.
 */
export function sessionStorageOrMemory(): Storage {
  try {
    const s = window.sessionStorage;
    s.getItem('racebeacon.probe');
    return s;
  } catch {
    return new MemoryStorage();
  }
}

export class MemoryStorage implements Storage {
  private readonly map = new Map<string, string>();
  get length() {
    return this.map.size;
  }
  clear() {
    this.map.clear();
  }
  getItem(key: string) {
    return this.map.get(key) ?? null;
  }
  key(index: number) {
    return [...this.map.keys()][index] ?? null;
  }
  removeItem(key: string) {
    this.map.delete(key);
  }
  setItem(key: string, value: string) {
    this.map.set(key, String(value));
  }
}
