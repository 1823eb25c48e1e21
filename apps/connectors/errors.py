"""The connectors' error codes. Messages never carry a password, a host's credentials or a
connection string: they name tables, columns, paths relative to the root, and what to change."""

from __future__ import annotations

from apps.core.errors import DomainError, Forbidden, InvalidInput, NotFound, Unavailable


class ConnectorNotFound(NotFound):
    """No configuration of that name for this agent that the person behind the run may use."""

    code = "connector_not_found"


class TableNotAllowed(Forbidden):
    """A statement touches a table outside the configuration's allowed tables."""

    code = "table_not_allowed"


class StatementNotAllowed(Forbidden):
    """More than one statement, or a statement or function that is never allowed (PRAGMA, ATTACH,
    COPY, LOAD DATA, INTO OUTFILE, file-reading functions, version comments …)."""

    code = "statement_not_allowed"


class StatementUnparsable(InvalidInput):
    """The SQL parser cannot read the statement: it is refused rather than guessed at."""

    code = "statement_unparsable"


class StatementFailed(InvalidInput):
    """The database refused a statement (an unknown column, a type mismatch); the answer names the
    columns of the allowed tables involved."""

    code = "statement_failed"


class StatementTimeout(DomainError):
    """The statement ran longer than the configuration's timeout and was cancelled."""

    code = "statement_timeout"
    http_status = 504


class ConnectorUnreachable(Unavailable):
    """The database or file share cannot be reached; the message names no host credentials."""

    code = "connector_unreachable"


class PathOutsideRoot(Forbidden):
    """A path that resolves (after symlinks) outside the configuration's root folder."""

    code = "path_outside_root"


class ExtensionNotAllowed(Forbidden):
    """A file whose extension is not in the configuration's allowed extensions."""

    code = "extension_not_allowed"


class WriteNotAllowed(Forbidden):
    """A writing action on a configuration without `allow_write`."""

    code = "write_not_allowed"


class PatternInvalid(InvalidInput):
    """A list or read_many pattern that is not a plain file name with wildcards."""

    code = "pattern_invalid"


class FileNotFoundInRoot(NotFound):
    """No file or folder at that path inside the root."""

    code = "connector_file_not_found"


class ConnectorConfigInvalid(InvalidInput):
    """A connector configuration with a bad value (an unknown kind, an empty root path …)."""

    code = "connector_config_invalid"


# Codes answered without an exception: the notice on a successful but capped result.
NOTICE_CODES = {
    "result_truncated": ("connectors", "A Database result or a FileRW list/read_many was cut at its limit."),
}
