/**
 * The bracket of a sorted array holding `x`: the index `lo` with `values[lo] <= x < values[lo + 1]` (binary
 * search), the first bracket below the first value and the last one from the last value on. `values` holds at
 * least two numbers, ascending.
 */
export function bracketIndex(values: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (values[mid] <= x) lo = mid;
    else hi = mid;
  }
  return lo;
}
