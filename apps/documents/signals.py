"""What other apps may follow about documents, without documents importing them.

The knowledge store is the main listener: it indexes a document's text and must purge its chunks
the moment the document goes away. Both signals are sent *inside* the writing transaction, so a
receiver's writes commit or roll back together with the document change.

- ``document_text_ready(sender=Document, document=<Document>)``: extraction produced text, or
  something the index depends on changed for a document that has text (title, folder and so the
  consent path, related clients and so the scope). ``document.knowledge_payload()`` returns what
  to index: ``{"title", "text", "sections": [{"title", "text"}], "scope": "personal" | "client" |
  "instance", "owner_id", "client_id", "path", "content_hash"}``.
- ``document_removed(sender=Document, document_id=<int>)``: the document is being deleted; sent
  before the row is gone.
"""

from django.dispatch import Signal

document_text_ready = Signal()
document_removed = Signal()
