"""Every test starts in one locale, and none leaves another behind.

The console formats figures through ``QLocale()`` (``console/ui/formatting.py``), the default
that ``console.ui.app.install_translators`` sets from the settings or the system. A test that
switches language (zh_CN) or locale (de_DE) sets that default too; without this fixture the tests
after it saw its locale, or the system's ("C": ``1024``) before any such test ran and en_US
(``1,024``) after one, so a figure's text depended on the order the files ran in.

``_one_locale_per_test`` (autouse) sets :data:`SUITE_LOCALE` before each test; a test that changed
the default and did not put it back errors at its teardown, naming the locale it left, and the
default is set back there, so the tests after it run as if it had not leaked.
"""

from __future__ import annotations

from typing import Iterator

import pytest
from PySide6.QtCore import QLocale

#: The locale the suite's figures are written in (``1,024``, ``1.5 GiB``).
SUITE_LOCALE = "en_US"


@pytest.fixture(autouse=True)
def _one_locale_per_test() -> Iterator[None]:
    QLocale.setDefault(QLocale(SUITE_LOCALE))
    yield
    left = QLocale()
    if left.name() != SUITE_LOCALE or left.toString(1024) != QLocale(SUITE_LOCALE).toString(1024):
        QLocale.setDefault(QLocale(SUITE_LOCALE))
        pytest.fail(f"the test left QLocale's default at {left.name()!r} (set it back in its teardown)")
