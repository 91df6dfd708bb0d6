// The domain package is compiled without Node typings; the accuracy suite reads real recordings from disk at test
// time (test/support/realtracks.ts) with these two calls only.
declare module 'node:fs' {
  export function existsSync(path: string): boolean;
  export function readFileSync(path: string, encoding: 'utf8'): string;
}
