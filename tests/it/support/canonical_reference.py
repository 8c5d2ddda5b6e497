"""An independent derivation of docs/connectome-canonical.md section 1, from JSON text.

Written from the page alone, with the Python standard library only (json, unicodedata,
fractions, decimal); it shares no code with the crate. Used by tests/it/connectome_canonical_text.rs.

Protocol: one input per stdin line, as lowercase hex of the JSON text's bytes. One answer per
line on stdout: "ok <hex of the canonical bytes>", or "refused <class>" where class is
"parse" (not JSON this reader accepts), "duplicate" (two keys of one object equal after NFC,
verbatim repeats included) or "range" (a number outside +-(2^53 - 1)).
"""

import json
import sys
import unicodedata
from decimal import Decimal
from fractions import Fraction

MAX_SAFE = 2**53 - 1
MAX_DEPTH = 127


class Refused(Exception):
    def __init__(self, why):
        super().__init__(why)
        self.why = why


class Float:
    """A number token with a fraction or an exponent: its binary64 value."""

    def __init__(self, value):
        self.value = value


def parse_float(token):
    value = float(token)  # correctly rounded, ties to even
    if value in (float("inf"), float("-inf")):
        raise Refused("parse")
    return Float(value)


def parse_int(token):
    # An integer token keeps its exact value; one beyond 64 bits is read as binary64, so one
    # that overflows binary64 is refused while parsing, like any other number that does.
    value = int(token)
    if -(2**63) <= value < 2**64:
        return value
    return parse_float(token)


def parse_constant(name):
    raise Refused("parse")  # NaN, Infinity, -Infinity are not JSON


def read(data):
    if data.startswith(b"\xef\xbb\xbf"):
        raise Refused("parse")  # a byte-order mark
    try:
        text = data.decode("utf-8")
        tree = json.loads(
            text,
            object_pairs_hook=lambda pairs: ("object", pairs),
            parse_float=parse_float,
            parse_int=parse_int,
            parse_constant=parse_constant,
        )
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Refused("parse")
    check_strings(tree, 0)
    return tree


def check_strings(v, depth):
    """Lone surrogates are not Unicode scalar values; nesting is bounded."""
    if isinstance(v, tuple):
        if depth >= MAX_DEPTH:
            raise Refused("parse")
        for k, x in v[1]:
            scalar(k)
            check_strings(x, depth + 1)
    elif isinstance(v, list):
        if depth >= MAX_DEPTH:
            raise Refused("parse")
        for x in v:
            check_strings(x, depth + 1)
    elif isinstance(v, str):
        scalar(v)


def scalar(s):
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused("parse")


def nfc(s):
    return unicodedata.normalize("NFC", s)


def string(s):
    out = ['"']
    for c in nfc(s):
        o = ord(c)
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c == "\b":
            out.append("\\b")
        elif c == "\f":
            out.append("\\f")
        elif c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def shortest(x):
    """(digits, n) for a positive finite double x: the fewest decimal digits d1..dk with
    d1..dk * 10^(n-k) reading back as x; of two such k-digit strings the one closer to x, and
    of two equally close the even one (ECMAScript Number::toString)."""
    exact = Fraction(x)
    top = Decimal(x).adjusted()  # exact: 10^top <= x < 10^(top+1)
    for k in range(1, 18):
        scale = Fraction(10) ** (top - k + 1)
        low = exact // scale
        candidates = []
        for m in (low, low + 1):
            approx = m * scale
            if m > 0 and float(approx) == x:
                candidates.append((abs(approx - exact), m % 2, m))
        if candidates:
            _, _, m = min(candidates)
            digits = str(m)
            n = top + 1 + (len(digits) - k)  # m may be 10^k: one more digit before the point
            return digits.rstrip("0"), n
    raise AssertionError("no round-trip string within 17 digits")


def number_text(x):
    if x == 0:
        return "0"
    if x < 0:
        return "-" + number_text(-x)
    s, n = shortest(x)
    k = len(s)
    if k <= n <= 21:
        return s + "0" * (n - k)
    if 0 < n <= 21:
        return s[:n] + "." + s[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + s
    mantissa = s[0] + ("." + s[1:] if k > 1 else "")
    return mantissa + "e" + ("-" if n - 1 < 0 else "+") + str(abs(n - 1))


def enc(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        if abs(v) > MAX_SAFE:
            raise Refused("range")
        return str(v)
    if isinstance(v, Float):
        if abs(v.value) > MAX_SAFE:
            raise Refused("range")
        return number_text(v.value)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, list):
        return "[" + ",".join(enc(x) for x in v) + "]"
    members = sorted(((nfc(k), x) for k, x in v[1]), key=lambda kv: kv[0].encode("utf-16-be"))
    for a, b in zip(members, members[1:]):
        if a[0] == b[0]:
            raise Refused("duplicate")
    return "{" + ",".join(string(k) + ":" + enc(x) for k, x in members) + "}"


def canonical(data):
    return enc(read(data)).encode("utf-8")


def main():
    sys.setrecursionlimit(10000)
    for line in sys.stdin:
        data = bytes.fromhex(line.strip())
        try:
            answer = "ok " + canonical(data).hex()
        except Refused as r:
            answer = "refused " + r.why
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
