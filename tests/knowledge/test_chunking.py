"""Chunking: sections respected, sizes bounded, overlap carried, German abbreviations intact."""

from apps.knowledge import chunking

PARAGRAPH = (
    "Die Einkommensteuer wird nach Maßgabe des Gesetzes festgesetzt und ist fristgerecht zu zahlen. " * 3
)


def test_sentences_keep_german_abbreviations_and_dates_together():
    text = "Gem. § 15 Abs. 2 EStG gilt das z. B. am 15. März 2026. Der Bescheid ist da! Dr. Meier prüft ihn."
    assert chunking.split_sentences(text) == [
        "Gem. § 15 Abs. 2 EStG gilt das z. B. am 15. März 2026.",
        "Der Bescheid ist da!",
        "Dr. Meier prüft ihn.",
    ]


def test_chunks_are_bounded_overlap_and_follow_sections():
    text = "\n\n".join(f"Absatz {i}: {PARAGRAPH}" for i in range(12))
    specs, outline = chunking.chunk_payload(
        {"sections": [{"title": "Sachverhalt", "text": text}, {"title": "Ergebnis", "text": "Kurz und gut."}]}
    )
    body = [s for s in specs if s.heading == "Sachverhalt"]
    assert len(body) > 3 and all(len(s.text) <= chunking.MAX for s in specs)
    assert all(len(s.text) >= chunking.MIN for s in body[:-1])
    tail = chunking.split_sentences(body[0].text)[-1]
    assert body[1].text.startswith(tail)  # the overlap
    assert specs[-1].heading == "Ergebnis" and specs[-1].text == "Kurz und gut."
    assert [s.ordinal for s in specs] == list(range(len(specs)))
    assert outline[1] == {"title": "Ergebnis", "chars": 13, "first_chunk": len(body), "chunks": 1}


def test_a_giant_word_or_table_is_cut_and_nothing_is_lost():
    blob = "x" * 3000
    specs, _ = chunking.chunk_payload({"text": blob})
    assert "".join(s.text for s in specs) == blob and all(len(s.text) <= chunking.MAX for s in specs)


def test_hash_depends_on_title_and_text():
    spec = chunking.ChunkSpec(ordinal=0, heading="Frist", text="Ein Monat.")
    assert spec.embed_input("Bescheid") == "Bescheid · Frist\nEin Monat."
    assert spec.content_hash("Bescheid") != spec.content_hash("Vertrag")


def test_empty_payloads_have_no_chunks():
    assert chunking.chunk_payload({"text": "  \n\n "}) == ([], [])
    assert chunking.chunk_payload({"sections": [{"title": "Leer", "text": ""}]}) == ([], [])
