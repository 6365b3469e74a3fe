"""Secret redaction for any text: known token shapes, context rules and high-entropy strings.

`Redactor().redact(text)` replaces every finding by a stable placeholder
(`[REDACTED github-token #1]`: the same secret gets the same number for the redactor's lifetime);
`Redactor.find(text)` lists the findings with their kind and reason without changing anything;
`Redactor.redact_json(value)` redacts the string contents of a JSON value, never its keys, ids
or structure. No UI code here.
"""

from klipui.redact.detect import DETECTORS, KNOWN_SHAPES, Match, detect
from klipui.redact.redactor import Finding, Redactor, redact_lines

__all__ = ["DETECTORS", "KNOWN_SHAPES", "Finding", "Match", "Redactor", "detect", "redact_lines"]
