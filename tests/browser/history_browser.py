"""gpumeter history's site in a real browser: a headless Chromium driven by Selenium.

    history_browser.py GPUMETER MAKE_HISTORY_RECORDS        the test (exit 0 pass, 1 fail,
                                                             77 skipped, saying why)
    history_browser.py --screenshots OUT_DIR SITE [PAGE...]  full-page PNGs of a built site

The test builds the site of records with a known history (tests/cli/make_history_records.cpp:
hostile names among them, each a script that marks the page if it ever runs), opens every page
from disk (file://, no server; every host name resolves nowhere, so nothing can be fetched), and
checks that:
  - every page and every link opens: each link of each page is followed, to a page of the site
    or an anchor on it, and the anchor exists;
  - the regression list on regressions.html is the list in regressions.json, row for row;
  - nothing from a record runs as script: no page is marked, no script, frame, image or object
    element and no event attribute is in any page, no javascript: link; the hostile names are
    shown, as text;
  - nothing but the site's own files was loaded, and the browser logged no error.

Chromium and its driver come from Debian's packages (chromium, chromium-driver:
scripts/setup-tests.sh, which scripts/test.sh runs), Selenium from PyPI (scripts/test.sh's virtual environment). Where one is missing the test skips
(exit 77) and says which, unless GPUMETER_BROWSER_REQUIRED=1, where it fails.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

SKIP = 77
HOSTILE_MARK = "data-pwned"


def find_browser() -> tuple[str | None, str | None, str]:
    """The Chromium binary and its driver, or why not."""
    chromium = os.environ.get("GPUMETER_CHROMIUM") or next(
        (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p),
        None,
    )
    driver = os.environ.get("GPUMETER_CHROMEDRIVER") or shutil.which("chromedriver")
    if chromium is None:
        return None, None, "no Chromium (apt-get install chromium, or scripts/setup-tests.sh)"
    if driver is None:
        return None, None, "no chromedriver (apt-get install chromium-driver, or scripts/setup-tests.sh)"
    return chromium, driver, ""


def open_browser(chromium: str, driver_path: str, width: int = 1400, height: int = 1000):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root, where Chromium's sandbox cannot start
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
        # No network: every name resolves nowhere, so a page that tried to fetch anything fails.
        "--host-resolver-rules=MAP * ~NOTFOUND",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(driver_path), options=options)


class Failures:
    def __init__(self) -> None:
        self.items: list[str] = []

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.items.append(what)
            print(f"FAIL: {what}", file=sys.stderr)


def page_facts(driver) -> dict:
    """What a loaded page holds, read by the driver (the page itself runs no script)."""
    return driver.execute_script(
        """
        const el = document.documentElement;
        const bad = [];
        for (const e of document.querySelectorAll('*')) {
          const tag = e.tagName.toLowerCase();
          if (['script', 'iframe', 'frame', 'img', 'object', 'embed', 'base', 'form'].includes(tag))
            bad.push('element ' + tag);
          for (const a of e.attributes) {
            if (a.name.toLowerCase().startsWith('on')) bad.push('attribute ' + a.name + ' on ' + tag);
            const v = a.value.trim().toLowerCase();
            if ((a.name === 'href' || a.name === 'src' || a.name === 'xlink:href') &&
                (v.startsWith('javascript:') || v.startsWith('data:')))
              bad.push(a.name + ' ' + a.value);
          }
        }
        const th = document.querySelector('th');
        return {
          marked: el.getAttribute('%s'),
          bad: bad,
          h1: (document.querySelector('h1') || {}).textContent || null,
          title: document.title,
          text: document.body ? document.body.innerText : '',
          links: Array.from(document.querySelectorAll('a[href]')).map(
            a => new URL(a.getAttribute('href'), document.baseURI).href),
          ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
          resources: performance.getEntriesByType('resource').map(r => r.name),
          styled: th ? getComputedStyle(th).backgroundColor : null,
          csp: (document.querySelector('meta[http-equiv="Content-Security-Policy"]') || {}).content || null,
        };
        """
        % HOSTILE_MARK
    )


def severe_logs(driver) -> list[str]:
    try:
        return [e["message"] for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    except Exception:  # a driver without logs: nothing to read, nothing claimed
        return []


def run_test(gpumeter: str, make_records: str) -> int:
    chromium, driver_path, why = find_browser()
    required = os.environ.get("GPUMETER_BROWSER_REQUIRED") == "1"
    try:
        import selenium  # noqa: F401
    except ImportError:
        chromium, why = None, f"no Selenium in {sys.executable} (pip install selenium)"
    if chromium is None:
        if required:
            print(f"FAIL: the history browser test cannot run (GPUMETER_BROWSER_REQUIRED=1): {why}")
            return 1
        print(f"SKIP: the history browser test needs a browser: {why}")
        return SKIP

    f = Failures()
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        subprocess.run([make_records, str(work / "records")], check=True, stdout=subprocess.DEVNULL)
        site = work / "site"
        subprocess.run(
            [gpumeter, "history", str(work / "records"), "--out", str(site)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        site_uri = site.resolve().as_uri() + "/"
        hostile = [
            "<script>document.documentElement.setAttribute('data-pwned','case')</script>",
            "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','impl')\">",
        ]

        driver = open_browser(chromium, driver_path)
        try:
            # Every page, reached by following links from the index.
            seen: dict[str, dict] = {}
            queue = [site_uri + "index.html"]
            anchors: list[tuple[str, str, str]] = []  # (from page, to page, fragment)
            while queue:
                url = queue.pop(0)
                if url in seen:
                    continue
                driver.get(url)
                facts = page_facts(driver)
                seen[url] = facts
                name = url[len(site_uri):]
                f.check(facts["marked"] is None, f"{name}: a record's script ran ({facts['marked']})")
                f.check(not facts["bad"], f"{name}: {facts['bad'][:5]}")
                f.check(bool(facts["h1"]), f"{name}: no heading")
                f.check(facts["csp"] is not None and "script-src 'none'" in facts["csp"],
                        f"{name}: no policy forbidding scripts")
                f.check(facts["styled"] == "rgb(243, 245, 247)",
                        f"{name}: the style sheet did not apply ({facts['styled']})")
                outside = [r for r in facts["resources"] if not r.startswith(site_uri)]
                f.check(not outside, f"{name}: loaded from outside the site: {outside}")
                logs = severe_logs(driver)
                f.check(not logs, f"{name}: browser errors: {logs[:3]}")
                for link in facts["links"]:
                    target, _, fragment = link.partition("#")
                    f.check(target.startswith(site_uri), f"{name}: a link leaves the site: {link}")
                    if not target.startswith(site_uri):
                        continue
                    rel = urllib.parse.unquote(target[len(site_uri):])
                    f.check((site / rel).is_file(), f"{name}: a link to a missing file: {rel}")
                    if fragment:
                        anchors.append((name, target, fragment))
                    if rel.endswith(".html") and target not in seen:
                        queue.append(target)
            pages = sorted(p.name for p in site.glob("*.html"))
            reached = sorted(u[len(site_uri):] for u in seen)
            f.check(reached == pages, f"pages not reached by links: {set(pages) - set(reached)}")
            for origin, target, fragment in anchors:
                f.check(fragment in seen[target]["ids"], f"{origin}: no #{fragment} on {target}")

            index = seen[site_uri + "index.html"]
            for text in hostile:
                f.check(text in index["text"], f"index: the hostile name is not shown as text: {text}")

            # A click, as a reader makes it: index -> a series page.
            from selenium.webdriver.common.by import By

            driver.get(site_uri + "index.html")
            first = driver.find_elements(By.CSS_SELECTOR, "a.series-link")[0]
            expected = first.get_attribute("href")
            first.click()
            f.check(driver.current_url == expected, f"a click on a series went to {driver.current_url}")
            f.check(bool(driver.find_elements(By.ID, "points")), "a series page has no points table")

            # The regression list is the JSON's.
            data = json.loads((site / "regressions.json").read_text())
            driver.get(site_uri + "regressions.json")
            shown = driver.find_element(By.TAG_NAME, "body").text
            f.check(json.loads(shown) == data, "regressions.json shows other data in the browser")
            for kind in ("regressions", "improvements"):
                driver.get(site_uri + "regressions.html")
                rows = driver.find_elements(By.CSS_SELECTOR, f"table#{kind} tbody tr")
                listed = [
                    {
                        "row": r.find_element(By.CSS_SELECTOR, "td.row").text,
                        "from_commit": r.find_element(By.CSS_SELECTOR, "td.from").text,
                        "to_commit": r.find_element(By.CSS_SELECTOR, "td.to").text,
                        "change": r.find_element(By.CSS_SELECTOR, "td.move").text,
                        "page": r.find_element(By.CSS_SELECTOR, "td.row a").get_attribute("href")[len(site_uri):],
                    }
                    for r in rows
                ]
                expected_rows = [
                    {k: m[k] for k in ("row", "from_commit", "to_commit", "change", "page")}
                    for m in data[kind]
                ]
                f.check(listed == expected_rows, f"{kind}: the page lists {listed}, the JSON {expected_rows}")
                f.check(len(listed) > 0, f"{kind}: none listed (the records hold some)")
                # Each leads to its point, marked as the same move.
                for m in data[kind]:
                    driver.get(site_uri + m["page"])
                    point = driver.find_element(By.ID, m["page"].split("#")[1])
                    cls = point.get_attribute("class") or ""
                    want = "slower" if kind == "regressions" else "faster"
                    f.check(want in cls.split(), f"{m['page']}: the point is not marked {want} ({cls})")
            f.check(len(data["regressions"]) == 2 and len(data["improvements"]) == 1,
                    f"expected 2 regressions and 1 improvement, the JSON has "
                    f"{len(data['regressions'])} and {len(data['improvements'])}")
            # The line breaks, said in words on the page of the series that changed board.
            kernel = next(u for u, v in seen.items() if (v["h1"] or "").startswith("copy / kernel"))
            f.check("the line breaks: board changed from" in seen[kernel]["text"],
                    "the kernel's page does not say its line breaks")
            f.check(seen[site_uri + "index.html"]["marked"] is None, "the index was marked")
        finally:
            driver.quit()

    print(f"history browser test: {len(seen)} pages opened from disk; "
          f"{'all checks passed' if not f.items else str(len(f.items)) + ' failure(s)'}")
    return 1 if f.items else 0


def screenshots(out_dir: str, site: str, pages: list[str]) -> int:
    chromium, driver_path, why = find_browser()
    if chromium is None:
        print(f"screenshots: {why}", file=sys.stderr)
        return 2
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    root = pathlib.Path(site).resolve()
    driver = open_browser(chromium, driver_path, 1400, 1000)
    try:
        for page in pages or ["index.html", "regressions.html"]:
            driver.get((root / page).as_uri())
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(1400, min(max(int(height) + 40, 600), 6000))
            name = out / (pathlib.Path(page).stem + ".png")
            driver.save_screenshot(str(name))
            print(name)
    finally:
        driver.quit()
    return 0


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "--screenshots":
        return screenshots(argv[1], argv[2], argv[3:])
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    return run_test(argv[0], argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
