"""A URL conf without any page (tests/core/test_navigation_memo.py)."""

urlpatterns: list = []
