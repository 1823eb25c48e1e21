"""The REST API's JSON parser (`REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]`)."""

from __future__ import annotations

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser as DrfJSONParser

from apps.core import jsontext


class JSONParser(DrfJSONParser):
    """Every REST JSON body goes through `jsontext.loads`: nesting too deep, a number too long or
    not finite, or a NUL character answer 400 with their own code (`json_too_deep`,
    `json_number_invalid`, `nul_character`; `apps.core.surfaces.api.exception_handler`); a syntax error
    stays DRF's `parse_error`."""

    def parse(self, stream, media_type=None, parser_context=None):
        encoding = (parser_context or {}).get("encoding", "utf-8")
        try:
            return jsontext.loads(stream.read().decode(encoding))
        except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError
            raise ParseError(f"JSON parse error - {exc}") from None
