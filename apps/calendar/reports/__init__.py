"""The Fristenbuch reports an office files and signs: the Fristenliste (every Frist of a period by
its end), the morning Fristenkontrollblatt and the end-of-day Ausgangskontrolle, each as PDF (office
header, "Stand", page numbers, sign-off line) and as CSV for German Excel.

`data` builds a `Report` (read-only queries through the calendar's visibility rules), `render`
turns any `Report` into PDF or CSV, `views` are the thin page adapters."""
