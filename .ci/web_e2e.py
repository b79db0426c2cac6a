#!/usr/bin/env python3
"""The web page of `gyoku serve` in a real headless browser (Debian chromium and
chromium-driver, driven by Selenium from PyPI):

- watch: gpsusi and Fairy-Stockfish play through two `gyoku csa-client`s on the server;
  a browser opens the game list, follows the game, and its page updates live (Server-Sent
  Events), view after view, to the announced ending, with every stored move in its list;
- judge: a KIF file in Shift_JIS is dropped on the judge page (a real drop event) and
  judged; a CSA record with a nifu shows the foul at its ply; a file that is not a record
  shows the API's error;
- the impasse calculator: a position with both kings entered, verdicts under every preset;
- Japanese and a phone-sized screen.

Screenshots of each page go to the directory given (CI keeps them as artefacts).
Usage: web_e2e.py GYOKU_BINARY SCREENSHOT_DIR
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from procs import free_port, stop

MAX_MOVES = 30


def browser(width=1200, height=900):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--lang=en-US"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, what, seconds=30):
    return WebDriverWait(driver, seconds, poll_frequency=0.1).until(what)


def main():
    gyoku = os.path.abspath(sys.argv[1])
    shots = os.path.abspath(sys.argv[2])
    os.makedirs(shots, exist_ok=True)
    work = tempfile.mkdtemp(prefix="gyoku-web-e2e-")
    csa, http = free_port(), free_port()
    server = subprocess.Popen(
        [gyoku, "serve", "--csa", f"127.0.0.1:{csa}", "--http", f"127.0.0.1:{http}",
         "--data-dir", work, "--max-moves", str(MAX_MOVES)],
        stderr=open(os.path.join(work, "serve.log"), "w"), start_new_session=True)
    base = f"http://127.0.0.1:{http}/"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", http), timeout=1).close()
            break
        except OSError:
            time.sleep(0.1)
    clients = []
    driver = browser()
    try:
        # --- watch a live engine game -------------------------------------------------
        driver.get(base)
        wait(driver, lambda d: d.find_element(By.ID, "game-list"))
        for name, engine in (("gps", "/usr/games/gpsusi"), ("fsf", "/usr/games/fairy-stockfish")):
            clients.append(subprocess.Popen(
                [gyoku, "csa-client", "--engine", engine, "--host", "127.0.0.1", "--port", str(csa),
                 "--id", name, "--password", f"pw-{name}", "--game", "web-5-1",
                 "--out", os.path.join(work, name)],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, f"{name}.log"), "w"),
                start_new_session=True))
        # The list refreshes by itself: the game appears, and is followed.
        link = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#game-list tr[data-id] a"), 60)[0]
        driver.save_screenshot(os.path.join(shots, "games.png"))
        link.click()
        wait(driver, lambda d: d.find_element(By.ID, "game"))
        state = """
            const g = document.getElementById('game'), e = document.getElementById('ending');
            return g && e ? [+g.dataset.moves, e.textContent, window.gyokuShown] : null;"""
        deadline = time.time() + 240
        shot = False
        while time.time() < deadline:
            now = driver.execute_script(state)
            if now and now[0] >= 6 and not shot:
                driver.save_screenshot(os.path.join(shots, "watch.png"))
                shot = True
            if now and "ply" in now[1] and "Not over" not in now[1]:
                break
            time.sleep(0.2)
        final, ending, shown = driver.execute_script(state)
        print(f"watch: {len(shown)} views shown live (move counts {shown[0]}..{shown[-1]}), "
              f"final {final} moves; ending: {ending}")
        assert final == MAX_MOVES or "wins" in ending, ending
        # Shown live, view after view without a reload, never going back (moves stored in
        # the same instant may come in one view; every one is in the list below).
        assert final - shown[0] >= 10 and len(set(shown)) >= 10, shown
        assert shown == sorted(shown), shown
        moves = [m.text for m in driver.find_elements(By.CSS_SELECTOR, "#moves span[data-ply]")]
        game_id = driver.execute_script("return decodeURIComponent(location.hash.slice(7))")
        with urllib.request.urlopen(f"{base}api/games/{urllib.parse.quote(game_id, safe='')}") as r:
            stored = json.load(r)["moves"]
        assert moves == [f"{m['ply']} {m['ki2']}" for m in stored], (moves[:3], stored[:3])
        assert driver.find_elements(By.CSS_SELECTOR, "#verdicts tr[data-preset]"), "no impasse panel"
        chart = wait(driver, lambda d: d.execute_script(
            "const i = document.getElementById('chart'); return i && i.complete && i.naturalWidth"))
        print(f"watch: the impasse chart is drawn ({chart} px wide)")
        driver.save_screenshot(os.path.join(shots, "watch-ended.png"))

        # --- judge a dropped record -------------------------------------------------------
        kif = ("手合割：平手\n手数----指手---------消費時間--\n"
               "   1 ７六歩(77)\n   2 ３四歩(33)\n   3 ２二角成(88)\n   4 同　銀(31)\n   5 投了\n")
        data = list(kif.encode("shift_jis"))
        driver.get(base + "#/judge")
        wait(driver, lambda d: d.find_element(By.ID, "drop"))
        driver.execute_script("""
            const bytes = new Uint8Array(arguments[0]);
            const dt = new DataTransfer();
            dt.items.add(new File([bytes], 'game.kif'));
            const drop = document.getElementById('drop');
            drop.dispatchEvent(new DragEvent('dragover', {dataTransfer: dt, bubbles: true, cancelable: true}));
            drop.dispatchEvent(new DragEvent('drop', {dataTransfer: dt, bubbles: true, cancelable: true}));
        """, data)
        ending = wait(driver, lambda d: d.find_element(By.ID, "ending")).text
        print(f"judge (dropped KIF, Shift_JIS): {ending}")
        assert "White wins" in ending and "resignation" in ending and "ply 5" in ending, ending
        assert "△同　銀" in driver.find_element(By.ID, "moves").text
        driver.save_screenshot(os.path.join(shots, "judge.png"))
        # A foul, marked at its ply (the file input this time).
        nifu = os.path.join(work, "nifu.csa")
        with open(nifu, "w") as f:
            f.write("PI13FU\nP+00FU\n+\n+7776FU\n-8384FU\n+2726FU\n-8485FU\n+0025FU\n%TORYO\n")
        driver.find_element(By.ID, "file").send_keys(nifu)
        foul = wait(driver, lambda d: d.find_element(By.ID, "foul")).text
        ending = driver.find_element(By.ID, "ending").text
        print(f"judge (nifu): {ending} / {foul}")
        assert "ply 5" in foul and "nifu" in foul and "illegal move" in ending, (foul, ending)
        driver.save_screenshot(os.path.join(shots, "judge-foul.png"))
        # Not a record: the API's message.
        junk = os.path.join(work, "junk.txt")
        with open(junk, "w") as f:
            f.write("this is not a record\n")
        driver.find_element(By.ID, "file").send_keys(junk)
        error = wait(driver, lambda d: d.find_element(By.ID, "error")).text
        print(f"judge (not a record): {error}")
        assert error.startswith("invalid_record:"), error

        # --- the impasse calculator -----------------------------------------------------
        sfen = "K8/9/9/9/9/9/9/9/8k b RB2G2S2N2L9Prb2g2s2n2l9p 1"
        driver.get(base + "#/calculator")
        box = wait(driver, lambda d: d.find_element(By.ID, "sfen"))
        box.clear()
        box.send_keys(sfen)
        driver.find_element(By.ID, "calculate").click()
        rows = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#verdicts tr[data-preset]"))
        presets = {r.get_attribute("data-preset"): r.text for r in rows}
        print(f"calculator: {len(presets)} presets; csa: {presets.get('csa')}; jsa: {presets.get('jsa')}")
        assert len(presets) >= 10 and "csa" in presets and "jsa" in presets, presets
        assert driver.find_element(By.CSS_SELECTOR, "#counts tr[data-side=black]").text
        driver.save_screenshot(os.path.join(shots, "calculator.png"))

        # --- Japanese, on a phone-sized screen -------------------------------------------
        driver.set_window_size(390, 844)
        driver.get(base + "#/")
        driver.find_element(By.ID, "lang").click()
        wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "nav a").text == "対局")
        first = driver.find_element(By.CSS_SELECTOR, "#game-list tr[data-id] a")
        first.click()
        wait(driver, lambda d: "終局" in d.find_element(By.ID, "game-status").text)
        width = driver.execute_script("return document.documentElement.scrollWidth")
        print(f"phone: page width {width}px in a 390px window, Japanese: {driver.find_element(By.ID, 'game-status').text}")
        assert width <= 400, width
        driver.save_screenshot(os.path.join(shots, "phone-ja.png"))
    finally:
        driver.quit()
        for c in clients:
            stop(c)
        stop(server)
    print(f"web page: watch, judge (drop, foul, error), calculator and phone/Japanese passed in chromium; screenshots in {shots}")


if __name__ == "__main__":
    main()
