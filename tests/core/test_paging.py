"""`web.paged`: a list page's window, read once from `?page=` and shared by the lister (limit and
offset) and the pagination links (the Django page)."""

from django.test import RequestFactory

from apps.core.surfaces import web


def _paging(query: str, per_page: int = 10, param: str = "page") -> web.Paging:
    return web.paged(RequestFactory().get(f"/liste/?{query}"), per_page, param)


def test_the_window_of_the_page_asked_for():
    paging = _paging("page=3")
    assert (paging.number, paging.offset) == (3, 20)
    assert paging.window == {"limit": 10, "offset": 20}
    page = paging.page(45)
    assert (page.number, page.paginator.num_pages, len(page.object_list)) == (3, 5, 10)


def test_a_missing_or_bad_page_is_the_first():
    for query in ("", "page=0", "page=-2", "page=zwei", "page=" + "9" * 40):
        paging = _paging(query)
        assert (paging.number, paging.window) == (1, {"limit": 10, "offset": 0}), query


def test_a_page_beyond_the_rows_shows_the_last_one():
    page = _paging("page=7").page(25)
    assert (page.number, list(page.object_list)) == (3, [20, 21, 22, 23, 24])


def test_no_rows_is_one_empty_page():
    page = _paging("page=2").page(0)
    assert (page.number, list(page.object_list)) == (1, [])


def test_a_list_may_read_its_page_under_another_name():
    assert _paging("page=4&p=2", per_page=25, param="p").window == {"limit": 25, "offset": 25}
