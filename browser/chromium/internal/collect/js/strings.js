// strings.js: the measures every job applies to strings: whitespace, UTF-16
// units and the serialized byte cost.

function clean(s) {
  return s.replace(/\s+/g, ' ').trim();
}

// cut keeps at most max UTF-16 units without splitting a surrogate pair
// (Go: observation.CutUTF16).
function cut(s, max) {
  if (s.length <= max) return [s, false];
  let end = max;
  if (isHigh(s.charCodeAt(end - 1)) && isLow(s.charCodeAt(end))) end--;
  return [s.slice(0, end), true];
}

function isHigh(c) {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLow(c) {
  return c >= 0xdc00 && c <= 0xdfff;
}

// The text byte bound counts each part as serialized: a JSON string
// (UTF-8, with quotes, backslashes and control characters escaped) and
// its separator (Go: observation.TextPartCost). charCost is one UTF-16
// unit's share of that, or a surrogate pair's; a lone surrogate reaches Go
// as U+FFFD.
function charCost(s, i) {
  const c = s.charCodeAt(i);
  if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x0c || c === 0x0a || c === 0x0d || c === 0x09) return [2, 1];
  if (c < 0x20) return [6, 1];
  if (c < 0x80) return [1, 1];
  if (c < 0x800) return [2, 1];
  if (isHigh(c) && isLow(s.charCodeAt(i + 1))) return [4, 2];
  return [3, 1];
}

// PLAIN is text of printable ASCII that JSON escapes none of: one byte a
// unit, what most parts are, costed without a walk.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

function partCost(s) {
  if (PLAIN.test(s)) return B.TextPartOverhead + s.length;
  let n = B.TextPartOverhead;
  for (let i = 0; i < s.length;) {
    const [w, step] = charCost(s, i);
    n += w;
    i += step;
  }
  return n;
}

// cutCost keeps the longest prefix of s whose part costs at most max,
// never splitting a surrogate pair.
function cutCost(s, max) {
  let n = B.TextPartOverhead;
  for (let i = 0; i < s.length;) {
    const [w, step] = charCost(s, i);
    if (n + w > max) return s.slice(0, i);
    n += w;
    i += step;
  }
  return s;
}

// dropUnits drops the first n UTF-16 units of s, or one less rather than
// split a surrogate pair.
function dropUnits(s, n) {
  let i = Math.min(n, s.length);
  if (isHigh(s.charCodeAt(i - 1)) && isLow(s.charCodeAt(i))) i--;
  return s.slice(i);
}

// rawOffset is the offset in raw after the first k units its collapsed
// form (runs of whitespace as one space, a leading run dropped if lead)
// holds.
function rawOffset(raw, k, lead) {
  let i = 0;
  for (let out = 0; out < k;) {
    if (!/[\t\n\r\f ]/.test(raw[i])) {
      i++;
      out++;
      continue;
    }
    if (i > 0 || !lead) out++;
    while (i < raw.length && /[\t\n\r\f ]/.test(raw[i])) i++;
  }
  return i;
}
