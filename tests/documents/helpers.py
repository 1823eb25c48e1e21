from django.core.files.uploadedfile import SimpleUploadedFile

from apps.core.inputs import build
from apps.documents import services
from apps.documents.contracts import DocumentUpload
from apps.documents.models import Document


def upload(principal, filename: str, data: bytes, capture, **kwargs) -> Document:
    """Upload through the service and run what happens after commit (the inline extraction)."""
    with capture(execute=True):
        document = services.upload_document(
            principal,
            build(DocumentUpload, **kwargs),
            content=SimpleUploadedFile(filename, data),
            filename=filename,
        )
    return Document.objects.get(pk=document.pk)
