/**
 * Columns of integers as one short text: an adaptive binary range coder (the arithmetic coding of LZMA's range
 * coder, on counts instead of a shift) under base64. The compact live stream's deltas are mostly columns of small
 * differences from predictions — ranges of ETAs that are 0 four times in five, fixes a few metres off the course —
 * where deflate's byte-wise Huffman coding spends a character's code on every value: about 1.5 times what the
 * values' entropy is on a realistic course (bench/wire.bench.ts, WIRE_COURSE=winding). Coded here each column learns
 * its own statistics as it goes, so a value costs about its information; deflate on top finds nothing more, and
 * spends 6 bits per base64 character of 6 bits.
 *
 * Pure integer arithmetic on doubles below 2^53 (every JavaScript engine decodes what another encoded). The encoder
 * and decoder share one model per column: made fresh for each call, nothing kept between messages (a viewer may
 * join at any message).
 *
 * An integer v: a zero flag (its context: whether the previous value of the column was 0); else its sign, then
 * |v| in Elias-gamma form: the count of its bits after the leading one (unary, a context per place), the first of
 * them (a context per count), the rest as they are.
 */

const TOTAL_BITS = 12;
const TOTAL = 2 ** TOTAL_BITS;
const TOP = 2 ** 24;
const P_MIN = 16;
const P_MAX = TOTAL - 16;
/** Counts are halved at this total (a column's statistics drift along the field). */
const COUNT_LIMIT = 1024;
const MAX_BITS = 53;
/** After a value at least this large, a flag says whether the next repeats it (small values cost little anyway). */
const LARGE = 8;
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** One adaptive bit: counts of 0s and 1s seen (Krichevsky–Trofimov: each starts at a half). */
class Bit {
  n0 = 0;
  n1 = 0;
  /** The probability of a 0, in 4096ths. */
  p0(): number {
    const p = Math.floor((TOTAL * (2 * this.n0 + 1)) / (2 * (this.n0 + this.n1) + 2));
    return p < P_MIN ? P_MIN : p > P_MAX ? P_MAX : p;
  }
  update(bit: number): void {
    if (bit) this.n1++;
    else this.n0++;
    if (this.n0 + this.n1 >= COUNT_LIMIT) {
      this.n0 = Math.ceil(this.n0 / 2);
      this.n1 = Math.ceil(this.n1 / 2);
    }
  }
}

/** The contexts of one column's integers. */
class IntModel {
  zero = [new Bit(), new Bit()];
  repeat = [new Bit(), new Bit()];
  sign = new Bit();
  unary: Bit[] = Array.from({ length: MAX_BITS + 1 }, () => new Bit());
  first: Bit[] = Array.from({ length: MAX_BITS + 1 }, () => new Bit());
  second: Bit[] = Array.from({ length: MAX_BITS + 1 }, () => new Bit());
  prev = 0;
  prevZero = 0;
  prevRepeat = 0;
}

/** A fixed half: bits coded without a model. */
const HALF = TOTAL / 2;

class Encoder {
  private low = 0;
  private range = 2 ** 32 - 1;
  private cache = 0;
  private cacheSize = 1;
  readonly bytes: number[] = [];

  bit(model: Bit | null, bit: number): void {
    const p = model ? model.p0() : HALF;
    const bound = (this.range >>> TOTAL_BITS) * p; // range < 2^32: its 4096ths, floored
    if (bit) {
      this.low += bound;
      this.range -= bound;
    } else this.range = bound;
    model?.update(bit);
    while (this.range < TOP) {
      this.range *= 256;
      this.shiftLow();
    }
  }

  private shiftLow(): void {
    // `low` below 2^33: its bit 32 is a carry into the bytes still held (the cache and a run of 0xFF after it).
    if (this.low < 0xff000000 || this.low >= 2 ** 32) {
      const carry = this.low >= 2 ** 32 ? 1 : 0;
      let byte = this.cache;
      do {
        this.bytes.push((byte + carry) & 0xff);
        byte = 0xff;
      } while (--this.cacheSize !== 0);
      this.cache = Math.floor(this.low / TOP) & 0xff;
    }
    this.cacheSize++;
    this.low = (this.low % TOP) * 256;
  }

  finish(): number[] {
    for (let i = 0; i < 5; i++) this.shiftLow();
    // The first byte is always 0 (the cache before anything): the decoder starts past it.
    return this.bytes.slice(1);
  }
}

class Decoder {
  private range = 2 ** 32 - 1;
  private code = 0;
  private at = 0;

  constructor(private readonly bytes: readonly number[]) {
    for (let i = 0; i < 4; i++) this.code = this.code * 256 + this.next();
  }

  private next(): number {
    return this.at < this.bytes.length ? this.bytes[this.at++] : 0;
  }

  bit(model: Bit | null): number {
    const p = model ? model.p0() : HALF;
    const bound = (this.range >>> TOTAL_BITS) * p; // range < 2^32: its 4096ths, floored
    let bit: number;
    if (this.code < bound) {
      this.range = bound;
      bit = 0;
    } else {
      this.code -= bound;
      this.range -= bound;
      bit = 1;
    }
    model?.update(bit);
    while (this.range < TOP) {
      this.range *= 256;
      this.code = this.code * 256 + this.next();
    }
    return bit;
  }
}

function encodeInt(e: Encoder, m: IntModel, v: number): void {
  if (Math.abs(m.prev) >= LARGE) {
    // The same as the value before (a column of one large value: a time, an id).
    const repeat = v === m.prev ? 1 : 0;
    e.bit(m.repeat[m.prevRepeat], repeat);
    m.prevRepeat = repeat;
    if (repeat) return;
  }
  const zero = v === 0 ? 1 : 0;
  e.bit(m.zero[m.prevZero], zero);
  m.prevZero = zero;
  m.prev = v;
  if (zero) return;
  e.bit(m.sign, v < 0 ? 1 : 0);
  const a = Math.abs(v);
  // a = 2^top + rest, rest < 2^top: top in unary, then rest's bits from the highest.
  let top = 0;
  while (2 ** (top + 1) <= a) top++;
  for (let j = 0; j < top; j++) e.bit(m.unary[j], 1);
  if (top < MAX_BITS) e.bit(m.unary[top], 0);
  let rest = a - 2 ** top;
  for (let place = 2 ** (top - 1), k = 0; place >= 1; place /= 2, k++) {
    const b = rest >= place ? 1 : 0;
    e.bit(k === 0 ? m.first[top] : k === 1 ? m.second[top] : null, b);
    if (b) rest -= place;
  }
}

function decodeInt(d: Decoder, m: IntModel): number {
  if (Math.abs(m.prev) >= LARGE) {
    const repeat = d.bit(m.repeat[m.prevRepeat]);
    m.prevRepeat = repeat;
    if (repeat) return m.prev;
  }
  const zero = d.bit(m.zero[m.prevZero]);
  m.prevZero = zero;
  if (zero) {
    m.prev = 0;
    return 0;
  }
  const negative = d.bit(m.sign);
  let top = 0;
  while (top < MAX_BITS && d.bit(m.unary[top])) top++;
  let a = 2 ** top;
  for (let place = 2 ** (top - 1), k = 0; place >= 1; place /= 2, k++)
    if (d.bit(k === 0 ? m.first[top] : k === 1 ? m.second[top] : null)) a += place;
  const v = negative ? -a : a;
  m.prev = v;
  return v;
}

function toBase64(bytes: readonly number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = i + 2 < bytes.length ? 4 : i + 1 < bytes.length ? 3 : 2;
    for (let c = 0; c < chars; c++) out += B64[(n >> (18 - 6 * c)) & 63];
  }
  return out;
}

function fromBase64(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i += 4) {
    let n = 0;
    const chunk = text.slice(i, i + 4);
    for (let c = 0; c < 4; c++) {
      const k = c < chunk.length ? B64.indexOf(chunk[c]) : 0;
      if (k < 0) throw new Error('not a range-coded text');
      n = n * 64 + k;
    }
    const bytes = chunk.length - 1;
    for (let b = 0; b < bytes; b++) out.push((n >> (16 - 8 * b)) & 0xff);
  }
  return out;
}

/** Safe integers only (the codec's columns are): anything else is a bug of the caller. */
function check(v: number): void {
  if (!Number.isSafeInteger(v)) throw new Error(`range code: ${v} is not a safe integer`);
}

/** Columns of safe integers as one text (each column's length in it too). */
export function encodeColumns(columns: readonly (readonly number[])[]): string {
  const e = new Encoder();
  const lengths = new IntModel();
  encodeInt(e, lengths, columns.length);
  for (const c of columns) encodeInt(e, lengths, c.length);
  for (const c of columns) {
    const m = new IntModel();
    for (const v of c) {
      check(v);
      encodeInt(e, m, v);
    }
  }
  return toBase64(e.finish());
}

/** What `encodeColumns` was given. Throws on a text it did not make (a wrong length read). */
export function decodeColumns(text: string): number[][] {
  const d = new Decoder(fromBase64(text));
  const lengths = new IntModel();
  const n = decodeInt(d, lengths);
  if (n < 0 || n > 1e6) throw new Error('not a range-coded text');
  const sizes: number[] = [];
  for (let i = 0; i < n; i++) {
    const len = decodeInt(d, lengths);
    if (len < 0 || len > 1e7) throw new Error('not a range-coded text');
    sizes.push(len);
  }
  return sizes.map((len) => {
    const m = new IntModel();
    const out: number[] = [];
    for (let i = 0; i < len; i++) out.push(decodeInt(d, m));
    return out;
  });
}
