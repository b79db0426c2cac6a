#!/usr/bin/env python3
"""The web page of `gyoku serve` in a real headless browser (Debian chromium and
chromium-driver, driven by Selenium from PyPI):

- watch: gpsusi and Fairy-Stockfish play through two `gyoku csa-client`s on the server;
  a browser opens the game list, follows the game, and its page updates live (Server-Sent
  Events), view after view, to the announced ending, with every stored move in its list;
- judge: a KIF file in Shift_JIS is dropped on the judge page (a real drop event) and
  judged; a CSA record with a nifu shows the foul at its ply; a file that is not a record
  shows the API's error;
- play: a person plays a whole game against the built-in engine by clicking on the board
  (promotions chosen in the page's dialog, drops from the hand) while a second browser
  watches it live; the clocks count down; an illegal drop is refused under friendly rules
  with its kind named, and loses under tournament rules; a misclick on a square the piece
  cannot reach sends nothing; Resign and Declare ask first (Declare says what the rules give
  now) and Cancel keeps playing; a declaration from the same position wins under `csa` and
  is a no-contest under `jsa`; two people play by a link and count an impasse by agreement,
  a third browser with the used link only watches, and another origin cannot act; two people
  agree to a sennichite once the position has repeated (the button idle until then); under
  fouls that count only when claimed, a nifu is played and its opponent claims it; the form
  offers byoyomi periods, thinking units and the engine and event presets, and a game's
  clock shows them;
- the impasse calculator: a position with both kings entered, verdicts under every preset;
  the board editor: pieces taken off and put on, a pawn added to the hand, counted anew;
- accounts: two people register, log out and in, play a game by a link, and both ratings
  change as Glicko-2 says (checked against pyglicko2 from PyPI); a person plays level 1 of
  Fairy-Stockfish in a ten-minute game and it answers within its level's time; a finished
  game is analysed from its page, its evaluation graph drawn and the best move of ply 10
  shown;
- Japanese and a phone-sized screen.

Screenshots of each page go to the directory given (CI keeps them as artefacts).
Usage: web_e2e.py GYOKU_BINARY SCREENSHOT_DIR
"""

import json
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from procs import free_port, stop, scratch_dir

MAX_MOVES = 30
GYOKU = None  # the binary under test, set by main()


def browser(width=1200, height=900, env=None):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--lang=en-US"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver", env=env), options=options)


def no_cjk_font(base, shots):
    """The pieces and ranks are drawn with no Japanese font on the machine: a browser that
    sees only DejaVu (if even that) draws 玉 and 飛 as text alike (both missing), and the
    board's 玉 and 飛 differently."""
    conf_dir = scratch_dir("gyoku-fonts-")
    conf = os.path.join(conf_dir, "fonts.conf")
    with open(conf, "w") as f:
        f.write("<?xml version='1.0'?><!DOCTYPE fontconfig SYSTEM 'fonts.dtd'><fontconfig>"
                f"<dir>/usr/share/fonts/truetype/dejavu</dir><cachedir>{conf_dir}/cache</cachedir>"
                "</fontconfig>")
    bare = browser(env={**os.environ, "FONTCONFIG_FILE": conf})
    try:
        bare.get(base + "#/calculator")
        bare.execute_script("localStorage.setItem('gyoku.glyphs', 'kanji')")
        bare.refresh()
        box = wait(bare, lambda d: d.find_element(By.ID, "sfen"))
        box.clear()
        box.send_keys("startpos")
        bare.find_element(By.ID, "calculate").click()
        wait(bare, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-square='5i'] .piece"))
        bare.execute_script(
            "for (const [id, c] of [['text-king', '玉'], ['text-rook', '飛']]) {"
            "  const s = document.createElement('span'); s.id = id; s.textContent = c;"
            "  s.style.fontSize = '40px'; document.body.prepend(s); }")
        text = [bare.find_element(By.ID, i).screenshot_as_png for i in ("text-king", "text-rook")]
        piece = lambda sq: bare.find_element(By.CSS_SELECTOR, f"[data-square='{sq}'] .piece")
        drawn = [piece(sq).screenshot_as_png for sq in ("5i", "2h")]
        labels = [piece(sq).get_attribute("aria-label") for sq in ("5i", "2h", "5a")]
        rank = bare.find_element(By.CSS_SELECTOR, "#ranks .rank").get_attribute("aria-label")
        print(f"no Japanese font: 玉 and 飛 as text look {'alike' if text[0] == text[1] else 'different'}; "
              f"as pieces {'alike' if drawn[0] == drawn[1] else 'different'} ({', '.join(labels)}; rank {rank})")
        assert text[0] == text[1], "this browser still has a font with 玉 and 飛: the check proves nothing"
        assert drawn[0] != drawn[1] and labels == ["玉", "飛", "王"] and rank == "一", labels
        bare.save_screenshot(os.path.join(shots, "no-japanese-font.png"))
    finally:
        bare.quit()


def wait(driver, what, seconds=30):
    # The page re-renders what it shows as the server publishes (every 250 ms for the
    # rounds): an element found may be replaced before its text is read; try again then.
    return WebDriverWait(driver, seconds, poll_frequency=0.1,
                         ignored_exceptions=[StaleElementReferenceException]).until(what)


PLAY_PLIES = 24
# Black has entered with 10 pieces in the zone and 28 points: a declaration wins under
# `csa` (28 for Black) and is a no-contest under `jsa` (24-30 points: replayed).
DECLARE_SFEN = "8R/4K3B/GGGGSSSS1/nnnn5/pppppppp1/llll5/9/r7b/4k4 b 10P 1"
# Both kings entered, 27 points each: counted by agreement, a no-contest under `jsa`.
BOTH_ENTERED_SFEN = "K8/9/9/9/9/9/9/9/8k b RB2G2S2N2L9Prb2g2s2n2l9p 1"
# Black has a pawn on 5f and one in hand: P*5e is nifu.
NIFU_SFEN = "lnsgkgsnl/1r5b1/pppp1pppp/9/9/4P4/PPPP1PPPP/1B5R1/LNSGKGSNL b P 1"

VIEW = """
    const v = window.gyoku.clockView ? window.gyoku.clockView.view : null;
    const s = window.gyoku.playing;
    return v ? {status: v.status, turn: v.turn, legal: v.legal, moves: v.moves.length, id: v.id,
                ending: document.getElementById('ending').textContent,
                seat: s ? s.seat : null} : null;"""


def start_game(driver, base, **query):
    driver.get(base + "#/play?" + urllib.parse.urlencode(query))

    # The form drawn for this query (the page clears the one before at once), clicked once
    # it stays.
    def click_start(d):
        try:
            d.find_element(By.ID, "start").click()
            return True
        except (NoSuchElementException, StaleElementReferenceException):
            return False
    wait(driver, click_start)
    wait(driver, lambda d: d.find_elements(By.ID, "turn") and d.execute_script(VIEW))
    no_secret_in_url(driver)
    return driver.execute_script(VIEW)


def invite_person(driver, base, **query):
    """Starts a game against a person from the play form with `query`: the invitation's
    link, once the page shows it."""
    driver.get(base + "#/play?" + urllib.parse.urlencode({"opponent": "person", **query}))
    wait(driver, lambda d: d.find_element(By.ID, "start")).click()
    return wait(driver, lambda d: d.find_element(By.ID, "invite")).get_attribute("value")


def no_secret_in_url(driver):
    """The seat's page address carries this browser's handle, never the seat's secret."""
    url = driver.current_url
    secrets = driver.execute_script(
        "return Object.keys(localStorage).filter((k) => k.startsWith('gyoku.seat.'))"
        ".map((k) => localStorage.getItem(k))")
    assert "#/my/" in url and secrets, (url, secrets)
    assert not any(s in url for s in secrets), url


def click(driver, selector):
    """Clicks what `selector` finds, found again if the page redrew it meanwhile (a live
    view arriving)."""
    for _ in range(20):
        try:
            wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, selector)).click()
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise AssertionError(f"{selector} kept being redrawn")


def text_of(driver, element_id, ready=lambda text: True):
    """The text of the element `element_id` once it is there and `ready` (read in the page:
    a live view may redraw it at any time)."""
    script = "const e = document.getElementById(arguments[0]); return e ? e.textContent : null"
    return wait(driver, lambda d: (lambda t: t if t is not None and ready(t) else None)(
        d.execute_script(script, element_id)))


def make_move(driver, usi, color="b"):
    """Plays `usi` as a person would: a piece in hand or on the board, then its square,
    then the promotion dialog's answer when the page asks."""
    if usi[1] == "*":
        click(driver, f"#hand-{color} [data-piece={usi[0]}]")
    else:
        click(driver, f"[data-square='{usi[:2]}']")
    click(driver, f"[data-square='{usi[2:4]}']")
    time.sleep(0.05)
    if driver.find_elements(By.ID, "promote"):
        click(driver, "#promote-yes" if usi.endswith("+") else "#promote-no")


def play(driver, base, shots):
    # --- a whole game against the built-in engine, watched by a second browser ----------
    view = start_game(driver, base, opponent="builtin", rules="csa", color="black",
                      total=300, byoyomi=10, max_moves=PLAY_PLIES)
    game_id = view["id"]
    # The tab says whose move it is, and the status the rules in words.
    title = wait(driver, lambda d: d.title if "move" in d.title else None)
    status = text_of(driver, "game-status")
    print(f"play: the tab's title: '{title}'; the status: '{status}'")
    assert title.startswith("● Your move"), title
    assert "CSA / Floodgate" in status and "csa ·" not in status, status
    watcher = browser()
    try:
        watcher.get(base + "#/game/" + urllib.parse.quote(game_id, safe=""))
        wait(watcher, lambda d: d.find_element(By.ID, "game"))
        # The person's clock counts down while it thinks.
        first = text_of(driver, "clock-b")
        time.sleep(1.3)
        second = text_of(driver, "clock-b")
        print(f"play: the clock counts down: '{first}' -> '{second}'")
        assert first != second and "●" in second, (first, second)
        rng = random.Random(2026)
        played = 0
        deadline = time.time() + 240
        while time.time() < deadline:
            v = driver.execute_script(VIEW)
            if v["status"] != "playing":
                break
            if v["turn"] != "black" or not v["legal"] or v["seat"]["phase"] != "playing":
                time.sleep(0.1)
                continue
            before = v["moves"]
            # Promotions and drops now and then, so both dialogs are used.
            promotions = [m for m in v["legal"] if m.endswith("+")]
            drops = [m for m in v["legal"] if m[1] == "*"]
            pool = promotions or drops if rng.random() < 0.5 and (promotions or drops) else v["legal"]
            usi = rng.choice(pool)
            make_move(driver, usi)
            played += 1
            wait(driver, lambda d: (lambda x: x["moves"] > before or x["status"] != "playing")(
                d.execute_script(VIEW)))
            if played == 4:
                driver.save_screenshot(os.path.join(shots, "play.png"))
        v = driver.execute_script(VIEW)
        ending = text_of(driver, "result")
        print(f"play: {played} moves clicked, the game ended at {v['moves']} plies: {v['ending']} ({ending})")
        assert v["status"] == "finished" and "ply" in v["ending"], v
        driver.save_screenshot(os.path.join(shots, "play-ended.png"))
        # The watcher saw it live, every move in its list, ending and all.
        text_of(watcher, "ending", lambda t: "ply" in t)
        shown = watcher.execute_script("return window.gyokuShown")
        seen = [m.text for m in watcher.find_elements(By.CSS_SELECTOR, "#moves span[data-ply]")]
        with urllib.request.urlopen(f"{base}api/games/{urllib.parse.quote(game_id, safe='')}") as r:
            stored = json.load(r)["moves"]
        print(f"play: the watcher saw {len(shown)} views ({shown[0]}..{shown[-1]}), {len(seen)} moves listed")
        assert seen == [f"{m['ply']} {m['western']}" for m in stored] and len(seen) == v["moves"], (seen, stored)
        assert shown == sorted(shown) and len(set(shown)) >= played // 2, shown
        watcher.save_screenshot(os.path.join(shots, "play-watched.png"))
    finally:
        watcher.quit()

    # --- two people by a link: an impasse count proposed and accepted (jsa) ------------
    link = invite_person(driver, base, rules="jsa", color="black", sfen=BOTH_ENTERED_SFEN)
    driver.save_screenshot(os.path.join(shots, "play-invite.png"))
    friend = browser()
    try:
        friend.get(link)
        said = text_of(friend, "invitation")
        print(f"play (the invitation says): {said}")
        assert "invites you" in said and "JSA (professional) rules" in said and "you play White" in said, said
        wait(friend, lambda d: d.find_element(By.ID, "join")).click()
        wait(friend, lambda d: d.find_elements(By.ID, "impasse"))
        no_secret_in_url(friend)
        no_secret_in_url(driver)
        wait(driver, lambda d: d.find_elements(By.ID, "impasse") and d.find_element(By.ID, "impasse").is_enabled())
        click(driver, "#impasse")
        text_of(friend, "proposal")
        wait(friend, lambda d: d.find_element(By.ID, "impasse").is_enabled())
        friend.save_screenshot(os.path.join(shots, "play-proposal.png"))
        click(friend, "#impasse")
        ending = text_of(driver, "ending", lambda t: "ply" in t)
        print(f"play (two people by a link, jsa): {ending}")
        assert "No contest" in ending and "impasse by agreement" in ending and "27" in ending, ending
        # JSA replays a no-contest with the sides swapped: both seats are offered it.
        text_of(friend, "next-game")
        driver.save_screenshot(os.path.join(shots, "play-impasse-agreed.png"))
        # A third browser with the used link sees the game and cannot act; neither can a
        # request from another origin.
        third = browser()
        try:
            third.get(link)
            wait(third, lambda d: "#/game/" in d.current_url)
            assert not third.find_elements(By.ID, "controls"), "the third browser got controls"
            invite = link.rsplit("/", 1)[1]
            answer = third.execute_script("""
                return fetch('/api/seats/' + arguments[0] + '/resign',
                             {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'})
                  .then((r) => r.json().then((j) => [r.status, j.error ? j.error.code : null]));""", invite)
            print(f"play (a used link in a third browser): {third.current_url.split('#')[1][:40]}…, acting: {answer}")
            assert answer[0] == 409, answer
            third.save_screenshot(os.path.join(shots, "play-used-link.png"))
            # The creator's own address, opened elsewhere, is no seat.
            third.get(driver.current_url)
            said = text_of(third, "error")
            print(f"play (the creator's address in a third browser): {said}")
            assert "kept by the browser" in said, said
        finally:
            third.quit()
        request = urllib.request.Request(
            base + "api/play", data=b'{"opponent": "person"}', method="POST",
            headers={"Content-Type": "application/json", "Origin": "http://evil.example"})
        try:
            urllib.request.urlopen(request)
            raise AssertionError("another origin started a game")
        except urllib.error.HTTPError as e:
            code = json.load(e)["error"]["code"]
            print(f"play (a request from another origin): {e.code} {code}")
            assert e.code == 403 and code == "cross_origin", (e.code, code)
    finally:
        friend.quit()

    # --- two people agree to a sennichite once the position has repeated (jsa) ----------
    link = invite_person(driver, base, rules="jsa", color="black")
    friend = browser()
    try:
        friend.get(link)
        wait(friend, lambda d: d.find_element(By.ID, "join")).click()
        wait(driver, lambda d: d.find_elements(By.ID, "sennichite"))
        # Nothing has repeated: the button is there, not enabled.
        assert not driver.find_element(By.ID, "sennichite").is_enabled(), "enabled before a repetition"
        for i, usi in enumerate(["2h3h", "8b7b", "3h2h", "7b8b"]):
            mover, color = (driver, "b") if i % 2 == 0 else (friend, "w")
            wait(mover, lambda d: (lambda x: x and x["moves"] == i and x["seat"]["phase"] == "playing"
                                   and x["turn"] == ("black" if color == "b" else "white"))(d.execute_script(VIEW)))
            make_move(mover, usi, color)
        wait(friend, lambda d: d.find_element(By.ID, "sennichite").is_enabled())
        click(friend, "#sennichite")
        said = text_of(driver, "proposal")
        wait(driver, lambda d: d.find_element(By.ID, "sennichite").is_enabled())
        driver.save_screenshot(os.path.join(shots, "play-sennichite-proposal.png"))
        click(driver, "#sennichite")
        ending = text_of(friend, "ending", lambda t: "ply" in t)
        print(f"play (two people agree to a sennichite, jsa): '{said}' -> {ending}")
        assert "sennichite" in said and "No contest" in ending and "sennichite by agreement" in ending, ending
        text_of(driver, "next-game")
        driver.save_screenshot(os.path.join(shots, "play-sennichite-agreed.png"))
    finally:
        friend.quit()

    # --- fouls that stand only when claimed: a nifu played, then claimed (jsa-amateur) ---
    link = invite_person(driver, base, rules="jsa-amateur", fouls="claim", color="black", sfen=NIFU_SFEN)
    friend = browser()
    try:
        friend.get(link)
        said = text_of(friend, "invitation")
        wait(friend, lambda d: d.find_element(By.ID, "join")).click()
        # The game drawn (the last game's view stays until then), Black to move.
        wait(driver, lambda d: d.find_elements(By.ID, "controls"))
        wait(driver, lambda d: (lambda x: x and x["seat"]["phase"] == "playing" and x["turn"] == "black")(
            d.execute_script(VIEW)))
        note = text_of(driver, "fouls-rule")
        assert not friend.find_elements(By.ID, "claim"), "a claim before any foul"
        make_move(driver, "P*5e")
        shown = text_of(friend, "foul-made")
        friend.save_screenshot(os.path.join(shots, "play-foul-to-claim.png"))
        assert not driver.find_elements(By.ID, "claim"), "the fouler was offered a claim"
        click(friend, "#claim")
        ending = text_of(driver, "ending", lambda t: "ply" in t)
        print(f"play (fouls claimed, jsa-amateur): '{note}' / '{said}' / '{shown}' -> {ending}")
        assert "claims it" in note and "only if claimed" in said, (note, said)
        assert "nifu" in shown and "White wins" in ending and "a foul, claimed" in ending, (shown, ending)
        driver.save_screenshot(os.path.join(shots, "play-foul-claimed.png"))
    finally:
        friend.quit()

    # --- the other person's page is gone: a countdown, then the win claimed (issue 42) ----
    link = invite_person(driver, base, rules="csa", color="black")
    friend = browser()
    try:
        friend.get(link)
        wait(friend, lambda d: d.find_element(By.ID, "join")).click()
        wait(driver, lambda d: d.find_elements(By.ID, "controls") and d.find_elements(By.ID, "ending"))
        wait(driver, lambda d: (lambda x: x and x["seat"]["phase"] == "playing" and x["turn"] == "black")(
            d.execute_script(VIEW)))
        make_move(driver, "7g7f")
        wait(friend, lambda d: (lambda x: x and x["moves"] == 1)(d.execute_script(VIEW)))
        assert not driver.find_elements(By.ID, "opponent-away"), "away while both pages are open"
        # White goes to another site: its page says it leaves as it goes (the browser is
        # kept open until Black's page has heard it, so that the beacon is not cut off).
        friend.get("about:blank")
        counting = text_of(driver, "opponent-away", lambda t: "left" in t)
    finally:
        friend.quit()
    driver.save_screenshot(os.path.join(shots, "play-opponent-left.png"))
    click(driver, "#claim-absence")
    ending = text_of(driver, "ending", lambda t: "ply" in t)
    print(f"play (the other person's page gone): '{counting}' -> {ending}")
    assert "s to come back" in counting and "Black wins" in ending and "a player left" in ending, (counting, ending)
    driver.save_screenshot(os.path.join(shots, "play-absence-claimed.png"))

    # --- the form's clocks of real events: byoyomi periods and thinking units ------------
    driver.get(base + "#/play")
    wait(driver, lambda d: d.find_element(By.ID, "periods"))
    offered = [o.get_attribute("value") for o in driver.find_elements(By.CSS_SELECTOR, "#play-rules option")]
    assert {"csa24", "csa24h", "csa27h", "wcsc", "denryu", "floodgate"} <= set(offered), offered
    assert driver.find_elements(By.ID, "thinking-units") and driver.find_elements(By.ID, "unit-seconds")
    start_game(driver, base, opponent="builtin", rules="wcsc", color="black", total=60, byoyomi=30,
               periods=3, thinking_units=10, unit_seconds=60)
    clock = text_of(driver, "clock-b", lambda t: "×3" in t)
    print(f"play (periods and thinking units, wcsc): {clock} / {len(offered)} presets offered")
    assert "10 × 60 s units" in clock, clock
    driver.save_screenshot(os.path.join(shots, "play-periods.png"))
    click(driver, "#resign")
    click(driver, "#confirm-yes")
    text_of(driver, "ending", lambda t: "ply" in t)

    # --- a handicap from the form's list: White gives it and moves first ----------------
    driver.get(base + "#/play")
    pick = wait(driver, lambda d: d.find_element(By.ID, "handicap"))
    names = [o.get_attribute("value") for o in pick.find_elements(By.TAG_NAME, "option")]
    assert len(names) == 16 and names[0] == "" and "2-piece" in names, names
    driver.execute_script(
        "const s = document.getElementById('handicap'); s.value = '2-piece';"
        "s.dispatchEvent(new Event('change'))")
    assert driver.find_element(By.ID, "start-sfen").get_attribute("value") == "2-piece"
    click(driver, "#start")
    start = wait(driver, lambda d: d.execute_script(
        "const v = window.gyoku.clockView; return v && document.getElementById('turn') ? v.view.start_sfen : null"))
    print(f"play (2-piece handicap chosen from the list): starts from {start}")
    assert start.startswith("lnsgkgsnl/9/ppppppppp/") and " w " in start, start
    # White (the engine) has moved: Black may resign.
    wait(driver, lambda d: d.find_element(By.ID, "resign").is_enabled())
    click(driver, "#resign")
    click(driver, "#confirm-yes")
    text_of(driver, "ending", lambda t: "ply" in t)

    # --- an illegal drop: refused under friendly rules, lost under tournament rules ------
    start_game(driver, base, opponent="builtin", rules="csa", color="black", fouls="refuse", sfen=NIFU_SFEN)
    make_move(driver, "P*5e")
    refused = text_of(driver, "play-error")
    v = driver.execute_script(VIEW)
    print(f"play (friendly): {refused} / still {v['status']}, {v['moves']} moves")
    assert "Refused" in refused and "nifu" in refused and v["status"] == "playing", (refused, v)
    driver.save_screenshot(os.path.join(shots, "play-refused.png"))
    make_move(driver, "5f5e")
    wait(driver, lambda d: d.execute_script(VIEW)["moves"] >= 1)
    start_game(driver, base, opponent="builtin", rules="csa", color="black", fouls="lose", sfen=NIFU_SFEN)
    make_move(driver, "P*5e")
    ending = text_of(driver, "ending", lambda t: "ply" in t)
    print(f"play (tournament): {ending}")
    assert "White wins" in ending and "illegal move" in ending and "nifu" in ending, ending
    # Stepped back to the start and forward to the foul; downloaded as KIF (Shift_JIS),
    # which `gyoku judge` reads to the stored result.
    click(driver, "#step-first")
    wait(driver, lambda d: d.find_element(By.ID, "game").get_attribute("data-shown") == "0")
    assert not driver.find_elements(By.CSS_SELECTOR, "[data-square='5e'] .piece"), "5e is empty at the start"
    click(driver, "#moves span[data-ply='1']")
    wait(driver, lambda d: d.find_element(By.ID, "game").get_attribute("data-shown") == "1")
    shown = driver.find_element(By.CSS_SELECTOR, "[data-square='5e'] .piece").get_attribute("aria-label")
    foul_label = driver.find_element(By.CSS_SELECTOR, "#moves span[data-ply='1']").text
    assert shown in ("歩", "P") and "nifu" in foul_label, (shown, foul_label)
    driver.save_screenshot(os.path.join(shots, "play-foul-stepped.png"))
    href = driver.find_element(By.CSS_SELECTOR, "#downloads a[data-format=kif]").get_attribute("href")
    with urllib.request.urlopen(href) as r:
        kif = r.read()
        kind = r.headers.get("Content-Type")
    path = os.path.join(scratch_dir("gyoku-web-kif-"), "game.kif")
    with open(path, "wb") as f:
        f.write(kif)
    # Exit status 0 when the record agrees with its judgement, 1 when it differs: judged either way.
    out = subprocess.run([GYOKU, "judge", path, "--json"], capture_output=True)
    assert out.returncode in (0, 1), out.stderr
    judged = json.loads(out.stdout)
    record = judged["records"][0] if "records" in judged else judged
    print(f"play (foul stepped to, KIF downloaded as {kind}): {foul_label}; gyoku judge: "
          f"{record['result']} by {record['reason']} at ply {record['ply']}")
    assert "Shift_JIS" in kind and record["result"] == "white" and record["reason"] == "illegal_move", record
    # The rematch starts at once, colours swapped: the board is White's, turned round.
    click(driver, "#rematch")
    wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".boardwrap.flipped") and d.execute_script(VIEW)
         and d.execute_script(VIEW)["seat"]["color"] == "white")
    files = driver.find_element(By.ID, "files").text.split()
    ranks = driver.execute_script(
        "return [...document.getElementById('ranks').children].map(r => r.getAttribute('aria-label') || r.textContent)")
    kings = {c: driver.find_element(By.CSS_SELECTOR, f"[data-square='{c}'] .piece").get_attribute("aria-label")
             for c in ("5i", "5a")}
    print(f"play (rematch as White): files {files[0]}..{files[-1]}, ranks {ranks[0]}..{ranks[-1]}, kings {kings}")
    assert files[0] == "1" and files[-1] == "9" and ranks[0] in ("九", "i"), (files, ranks)
    assert kings == {"5i": "玉", "5a": "王"} or kings == {"5i": "K", "5a": "K"}, kings
    driver.save_screenshot(os.path.join(shots, "play-white-flipped.png"))
    click(driver, "#flip")
    wait(driver, lambda d: not d.find_elements(By.CSS_SELECTOR, ".boardwrap.flipped"))

    # --- a misclick sends nothing; Resign and Declare ask first ---------------------------
    start_game(driver, base, opponent="builtin", rules="csa", color="black")
    click(driver, "[data-square='2g']")
    click(driver, "[data-square='2e']")  # a pawn cannot go two squares
    time.sleep(0.5)
    v = driver.execute_script(VIEW)
    selected = driver.execute_script("return window.gyoku.playing.selected")
    print(f"play (misclick 2g-2e under csa): {v['status']}, {v['moves']} moves, selected {selected}")
    assert v["status"] == "playing" and v["moves"] == 0 and not driver.find_elements(By.ID, "play-error"), v
    click(driver, "[data-square='2g']")
    click(driver, "[data-square='3g']")  # another of one's own pieces: it is selected instead
    assert driver.execute_script("return window.gyoku.playing.selected") == "3g"
    note = text_of(driver, "fouls-rule")
    assert "Tournament" in note, note
    for button in ("resign", "declare"):
        click(driver, f"#{button}")
        question = text_of(driver, "confirm-text")
        print(f"play ({button} asks): {question}")
        click(driver, "#confirm-no")
        time.sleep(0.3)
        v = driver.execute_script(VIEW)
        assert v["status"] == "playing" and not driver.find_elements(By.ID, "confirm"), v
    assert "Declaring now loses" in question and "not entered" in question, question
    driver.save_screenshot(os.path.join(shots, "play-confirm.png"))
    click(driver, "#resign")
    click(driver, "#confirm-yes")
    ending = text_of(driver, "ending", lambda t: "ply" in t)
    assert "resignation" in ending, ending

    # --- a declaration: a win under csa, a no-contest under jsa -------------------------
    for rules, expected in (("csa", "Black wins"), ("jsa", "No contest")):
        start_game(driver, base, opponent="builtin", rules=rules, color="black", sfen=DECLARE_SFEN)
        wait(driver, lambda d: d.find_element(By.ID, "declare").is_enabled())
        click(driver, "#declare")
        question = text_of(driver, "confirm-text")
        assert ("wins" if rules == "csa" else "no contest") in question and "28" in question, question
        click(driver, "#confirm-yes")
        ending = text_of(driver, "ending", lambda t: "ply" in t)
        print(f"play (declaration, {rules}): {ending}")
        assert expected in ending and "declaration" in ending and "28" in ending, ending
        driver.save_screenshot(os.path.join(shots, f"play-declare-{rules}.png"))
        if rules == "jsa":
            # The engine plays the replay with colours swapped, and the page follows it. The
            # engine is Black now with the same 28 points, and it is told the game's rules
            # (issue 41: EnteringKingRule CSARule24 under jsa): it does not declare what
            # would only be another no contest, it moves; the person then resigns.
            said = text_of(driver, "result")
            assert said == "No contest: replayed with colours swapped.", said
            click(driver, "#next-game")
            wait(driver, lambda d: (lambda v: v and len(v["seat"]["games"]) >= 2 and v["status"] == "playing"
                                    and v["turn"] == v["seat"]["color"] and v["id"] == v["seat"]["games"][-1])(
                d.execute_script(VIEW)), 60)
            games = driver.execute_script(VIEW)["seat"]["games"]
            with urllib.request.urlopen(f"{base}api/games/{urllib.parse.quote(games[1], safe='')}") as r:
                replay = json.load(r)
            print(f"play (the replay against the engine, jsa): {replay['black']} (Black) vs {replay['white']}: "
                  f"{len(replay['moves'])} move(s), no declaration by the engine told CSARule24")
            assert replay["black"] == "builtin" and replay["black_kind"] == "engine" and replay["status"] == "playing", replay
            assert len(replay["moves"]) == 1, replay
            click(driver, "#resign")
            click(driver, "#confirm-yes")
            ending = text_of(driver, "ending", lambda t: "resignation" in t)
            print(f"play (the replay, resigned): {ending}")
            assert "Black wins" in ending, ending


def league(driver, base, shots, csa):
    """The games page says when the scheduled game's next round is and who waits (a CSA
    client waiting for it); the rating list, computed from the stored games, lists the two
    players of a decisive game between password logins (not yet rated: one game)."""
    # A decisive rated game first (two logins with passwords; Black resigns at once).
    def client(name):
        c = socket.create_connection(("127.0.0.1", csa), timeout=10)
        c.sendall(f"LOGIN {name} pw-{name} x1\n".encode())
        return c, c.makefile("r", encoding="utf-8")

    def read_until(f, prefix):
        for _ in range(200):
            line = f.readline()
            assert line, f"closed before {prefix}"
            if line.startswith(prefix):
                return line
        raise AssertionError(f"no {prefix}")

    (bc, bf), (wc, wf) = client("sente"), client("gote")
    bc.sendall(b"%%GAME rated-600-10 +\n")
    wc.sendall(b"%%GAME rated-600-10 -\n")
    for c, f in ((bc, bf), (wc, wf)):
        read_until(f, "END Game_Summary")
        c.sendall(b"AGREE\n")
    read_until(bf, "START:")
    bc.sendall(b"%TORYO\n")
    read_until(wf, "#WIN")
    bc.close()
    wc.close()
    # Thirty quick games among three more logins: all of them rated, so that a player's
    # page has a rating over time (and, after more games, a second point).
    trio = [client(n) for n in ("ann", "ben", "cal")]

    def trio_games(rounds, upset):
        for rnd in rounds:
            for a, b in ((0, 1), (1, 2), (2, 0)):
                game = f"rated{rnd}{a}{b}-600-10"
                trio[a][0].sendall(f"%%GAME {game} +\n".encode())
                trio[b][0].sendall(f"%%GAME {game} -\n".encode())
                for k in (a, b):
                    read_until(trio[k][1], "END Game_Summary")
                    trio[k][0].sendall(b"AGREE\n")
                for k in (a, b):
                    read_until(trio[k][1], "START:")
                loser = b if upset(a, rnd) else a
                if loser == b:
                    trio[a][0].sendall(b"+7776FU\n")
                    for k in (a, b):
                        read_until(trio[k][1], "+7776FU")
                trio[loser][0].sendall(b"%TORYO\n")
                for k in (a, b):
                    read_until(trio[k][1], "#LOSE" if k == loser else "#WIN")

    trio_games(range(10), lambda a, rnd: a == 2 and rnd % 3 == 0)
    waiter = socket.create_connection(("127.0.0.1", csa), timeout=10)
    waiter.sendall(b"LOGIN waiter pw-w x1\n%%GAME floodgate-300-10F *\n")
    try:
        driver.get(base)
        line = wait(driver, lambda d: [e.text for e in d.find_elements(
            By.CSS_SELECTOR, "#rounds .round[data-game='floodgate-300-10F']") if "waiter" in e.text])[0]
        print(f"league (games page): {line}")
        assert "next round" in line and ":00:00" in line or ":30:00" in line, line
        driver.get(base + "#/ratings")
        rows = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#rating-list tr[data-player]"), 30)
        players = sorted(r.get_attribute("data-player").split("+")[0] for r in rows)
        print(f"league (rating list): {players}; {driver.find_element(By.ID, 'ratings-at').text}")
        assert "sente" in players and "gote" in players, players
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#rating-list tr.rated"), 30)
        driver.save_screenshot(os.path.join(shots, "ratings.png"))
        # Six more games, Black winning each (cal loses four): its rating moves, and the list is kept again.
        trio_games(range(10, 12), lambda a, rnd: a != 2)
        for c, _ in trio:
            c.close()
        # A rated player's page: its rating over time, results by reason, latest games.
        driver.get(base + "#/player/cal")
        chart = wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#rating-chart circle")) >= 2
                     and d.find_elements(By.CSS_SELECTOR, "#rating-chart circle"), 30)
        rating = text_of(driver, "player-rating")
        reasons = driver.find_elements(By.CSS_SELECTOR, "#player-reasons tr")
        games = driver.find_elements(By.CSS_SELECTOR, "#player-games tr[data-id]")
        print(f"league (a player's page): {rating}; {len(chart)} points of rating over time, "
              f"{len(reasons) - 1} result lines, {len(games)} games")
        assert "rating" in rating and len(games) == 24 and len(reasons) >= 3, (rating, len(games))
        driver.save_screenshot(os.path.join(shots, "player.png"))
    finally:
        waiter.close()


def event(driver, base, shots, csa):
    """An organised event (gyoku serve --event-file): four CSA clients play its two Swiss
    rounds (Black resigns at once); the event's page shows the standings, the crosstable
    and both rounds' pairings, and says it is finished."""
    def player(name):
        c = socket.create_connection(("127.0.0.1", csa), timeout=30)
        f = c.makefile("r", encoding="utf-8")
        c.sendall(f"LOGIN {name} pw-{name} x1\n".encode())
        for _ in range(2):
            c.sendall(b"%%GAME club-60-0 *\n")
            black = False
            for line in f:
                if line.startswith("Your_Turn:"):
                    black = line.strip() == "Your_Turn:+"
                if line.startswith("END Game_Summary"):
                    break
            c.sendall(b"AGREE\n")
            for line in f:
                if line.startswith("START:") and black:
                    c.sendall(b"%TORYO\n")
                if line.strip() in ("#WIN", "#LOSE", "#DRAW"):
                    break
        c.close()

    threads = [threading.Thread(target=player, args=(f"club{i}",)) for i in range(1, 5)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    driver.get(base + "#/events/club")
    status = text_of(driver, "event-status", lambda t: "finished" in t)
    rows = driver.find_elements(By.CSS_SELECTOR, "#standings tr[data-player]")
    cross = driver.find_elements(By.CSS_SELECTOR, "#crosstable tr[data-player]")
    rounds = driver.find_elements(By.CSS_SELECTOR, "#pairings section[data-round]")
    top = rows[0].text if rows else ""
    print(f"event: {status}; {len(rows)} standings lines (first: {top}), "
          f"{len(cross)} crosstable rows, {len(rounds)} rounds of pairings")
    assert len(rows) == 4 and len(cross) == 4 and len(rounds) == 2, (len(rows), len(cross), len(rounds))
    assert top.split()[2] == "2", top
    # The crosstable in the standings' order.
    ranked = [r.get_attribute("data-player") for r in rows]
    crossed = [r.get_attribute("data-player") for r in cross]
    assert crossed == ranked, (crossed, ranked)
    driver.save_screenshot(os.path.join(shots, "event.png"))
    driver.get(base + "#/events")
    listed = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#event-list tr[data-event='club']"))
    print(f"event (list): {listed[0].text}")

    # The organiser's view: cup1 waits for its board, cup2 has not come; the forfeit time.
    c = socket.create_connection(("127.0.0.1", csa), timeout=30)
    try:
        c.sendall(b"LOGIN cup1 pw-cup1 x1\n%%GAME cup-60-0 *\n")
        driver.get(base + "#/events/cup")
        states = wait(driver, lambda d: (lambda rows: rows if rows.get("cup1") == "waiting" else None)(
            {r.get_attribute("data-player"): r.get_attribute("data-state")
             for r in d.find_elements(By.CSS_SELECTOR, "#people tr[data-player]")}))
        forfeit = text_of(driver, "forfeit-at")
        paired = text_of(driver, "pairings", lambda t: "paired" in t)
        print(f"event (organiser's view): {states}; {forfeit}; {paired!r}")
        assert states == {"cup1": "waiting", "cup2": "absent"}, states
        assert "forfeits" in forfeit and "/" in forfeit, forfeit
        assert "Round 1 · paired 20" in paired, paired
        driver.save_screenshot(os.path.join(shots, "event-organiser.png"))
    finally:
        c.close()


def accounts(driver, base, shots):
    """People's accounts (issue 46, item 1): two people register on the page, one logs out
    and in again; they play a game by a link (Black wins when White resigns), and both
    ratings change as Glicko-2 says, computed here by a reference from PyPI (pyglicko2,
    tau 0.5) from the ratings the page showed before the game."""
    from pyglicko2 import Outcome, Player, system

    def enter(d, form, name, password):
        d.get(base + "#/account")
        box = wait(d, lambda d: d.find_element(By.ID, f"{'reg' if form == 'register' else 'login'}-name"))
        box.send_keys(name)
        d.find_element(By.ID, f"{'reg' if form == 'register' else 'login'}-password").send_keys(password)
        d.find_element(By.ID, form).click()
        said = text_of(d, "logged-in")
        assert name in said, said
        assert wait(d, lambda d: d.find_element(By.ID, "account-link").text == name), name
        return said

    def glicko(d, name):
        """`(rating, deviation)` the ratings page shows for `name`, or the new player's."""
        d.get(base + "#/ratings")
        wait(d, lambda d: d.find_elements(By.CSS_SELECTOR, "#people-list tr"))
        rows = d.find_elements(By.CSS_SELECTOR, f"#people-list tr[data-person='{name}'] td.glicko")
        return tuple(float(x) for x in rows[0].text.split(" ± ")) if rows else (1500.0, 350.0)

    tag = "%04d" % random.randrange(10000)
    sente, gote = f"sente{tag}", f"gote{tag}"
    friend = browser()
    try:
        enter(driver, "register", sente, "sente-password")
        driver.save_screenshot(os.path.join(shots, "account.png"))
        click(driver, "#log-out")
        wait(driver, lambda d: d.find_elements(By.ID, "login-name")
             and d.find_element(By.ID, "account-link").text == "Log in")
        driver.save_screenshot(os.path.join(shots, "account-login.png"))
        enter(driver, "log-in", sente, "sente-password")
        enter(friend, "register", gote, "gote-password")
        before = {n: glicko(driver, n) for n in (sente, gote)}
        # The play form says who plays; the invitation, opened by the other account.
        link = invite_person(driver, base, rules="csa", color="black", total=600, byoyomi=10)
        friend.get(link)
        wait(friend, lambda d: d.find_element(By.ID, "join")).click()
        wait(friend, lambda d: d.find_elements(By.ID, "resign"))
        wait(driver, lambda d: (lambda x: x and x["seat"] and x["seat"]["phase"] == "playing"
                                and x["turn"] == "black")(d.execute_script(VIEW)))
        make_move(driver, "7g7f")
        wait(friend, lambda d: d.find_element(By.ID, "resign").is_enabled())
        click(friend, "#resign")
        click(friend, "#confirm-yes")
        ending = text_of(driver, "ending", lambda t: "ply" in t)
        print(f"accounts: {sente} (Black) vs {gote}: {ending}")
        with system(0.5):
            b = Player(before[sente][0], before[sente][1], 0.06)
            w = Player(before[gote][0], before[gote][1], 0.06)
            b0, w0 = Player(b.r, b.RD, b.σ), Player(w.r, w.RD, w.σ)
            b.update([w0], [Outcome.WIN])
            w.update([b0], [Outcome.LOSS])
        want = {sente: (round(b.r), round(b.RD)), gote: (round(w.r), round(w.RD))}

        def shown(d):
            now = {n: glicko(d, n) for n in (sente, gote)}
            return now if all(abs(now[n][0] - want[n][0]) <= 1 and abs(now[n][1] - want[n][1]) <= 1
                              for n in now) else None
        after = wait(driver, shown, 30)
        print(f"accounts (Glicko-2): before {before}, after {after}, pyglicko2 says {want}")
        driver.save_screenshot(os.path.join(shots, "ratings-people.png"))
        # The player's page: the rating now, its chart, the rated game from their side.
        driver.get(base + f"#/player/{gote}")
        now = text_of(driver, "glicko-now", lambda t: "Glicko-2" in t)
        row = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#glicko-history tr[data-id]"))[0].text
        assert driver.find_elements(By.CSS_SELECTOR, "#glicko-chart circle"), "no chart"
        print(f"accounts (player page): {now}; {row!r}")
        assert f"{want[gote][0]} ± {want[gote][1]}" in now and sente in row and "lost" in row, (now, row)
        driver.save_screenshot(os.path.join(shots, "player-glicko.png"))
    finally:
        friend.quit()


LEVEL_MS = 300
ANALYSIS_MS = 100


def call(base, method, path, body=None):
    """One request to the API, as a page on the server's own origin makes it: the JSON."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path.lstrip("/"), data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.load(r)


def analysis(driver, base, shots):
    """Analysis after a game (issue 46, item 3): a 14-ply game against the built-in engine,
    played over the API, is analysed from its page by Fairy-Stockfish (100 ms a position);
    the page shows the evaluation graph and, stepped to ply 10, the best move there, the
    one the API stored for the position before it."""
    seat = call(base, "POST", "api/play", {"opponent": "builtin", "rules": "csa", "color": "black",
                                           "max_moves": 14, "time": {"total": 300, "byoyomi": 10}})
    token = seat["token"]
    for _ in range(600):
        v = call(base, "GET", f"api/seats/{token}")
        game = v["game"]
        if game and game["status"] == "finished":
            break
        if game and v["seat"]["phase"] == "playing" and game["turn"] == "black" and game["legal"]:
            try:
                call(base, "POST", f"api/seats/{token}/move", {"move": sorted(game["legal"])[0]})
            except urllib.error.HTTPError:
                pass
        time.sleep(0.05)
    game_id = game["id"]
    assert game["status"] == "finished" and len(game["moves"]) >= 10, game
    driver.get(base + f"#/game/{urllib.parse.quote(game_id)}")
    click(driver, "#analyse")
    began = time.time()
    said = text_of(driver, "analysis-status", lambda t: "Analysed by" in t)
    took = time.time() - began
    stored = call(base, "GET", f"api/games/{urllib.parse.quote(game_id)}/analysis")
    positions = stored["analysis"]["positions"]
    print(f"analysis: {said} {len(positions)} positions in {took:.1f} s")
    assert len(positions) == len(game["moves"]) + 1, positions
    assert len(driver.find_element(By.CSS_SELECTOR, "#eval-graph polyline").get_attribute("points").split()) >= 10
    click(driver, "#moves span[data-ply='10']")
    best = text_of(driver, "best-move", lambda t: "ply 10" in t)
    want = positions[9]["best"]
    print(f"analysis (ply 10): {best}; stored for the position before it: {want}")
    assert want and f"Best at ply 10: {want}" in best, (best, want)
    driver.save_screenshot(os.path.join(shots, "analysis.png"))
    # A record pasted on the judge page is analysed the same way.
    driver.get(base + "#/judge")
    box = wait(driver, lambda d: d.find_element(By.ID, "record-text"))
    box.send_keys("position startpos moves 7g7f 3c3d 8h2b+ 3a2b 2g2f\n")
    driver.find_element(By.ID, "judge-text").click()
    click(driver, "#analyse")
    said = text_of(driver, "analysis-status", lambda t: "Analysed by" in t)
    click(driver, "#moves span[data-ply='3']")
    best = text_of(driver, "best-move", lambda t: "ply 3" in t)
    print(f"analysis (a judged record): {said} {best}")
    assert "played 8h2b+" in best, best
    driver.save_screenshot(os.path.join(shots, "analysis-judged.png"))


def engine_level(driver, base, shots):
    """A level of a real engine (issue 46, item 2): the form offers Fairy-Stockfish's
    levels; a person plays level 1 (300 ms a move) in a ten-minute game, and each of the
    engine's answers comes within its level's time (and the round trips), not the clock's."""
    driver.get(base + "#/play?opponent=fsf")
    options = wait(driver, lambda d: [o.text for o in d.find_elements(By.CSS_SELECTOR, "#level option")])
    print(f"engine level (the form offers): {options}")
    assert options and "Level 1" in options[0] and f"{LEVEL_MS} ms" in options[0], options
    driver.save_screenshot(os.path.join(shots, "play-level.png"))
    view = start_game(driver, base, opponent="fsf", level=1, rules="csa", color="black", total=600, byoyomi=10)
    answers = []
    for _ in range(4):
        v = wait(driver, lambda d: (lambda x: x if x and x["seat"] and x["seat"]["phase"] == "playing"
                                    and x["turn"] == "black" and x["legal"] else None)(d.execute_script(VIEW)), 60)
        moves = v["moves"]
        legal = sorted(v["legal"], key=lambda m: ("*" in m, m))
        make_move(driver, legal[0])
        sent = time.time()
        wait(driver, lambda d: (lambda x: x and (x["moves"] >= moves + 2 or x["status"] != "playing"))(
            d.execute_script(VIEW)), 30)
        answers.append(round(time.time() - sent, 2))
        if driver.execute_script(VIEW)["status"] != "playing":
            break
    print(f"engine level (level 1, {LEVEL_MS} ms a move, a 10 min game): answered in {answers} s")
    assert len(answers) >= 3 and all(a < LEVEL_MS / 1000 + 2.5 for a in answers), answers
    assert view["id"], view
    driver.save_screenshot(os.path.join(shots, "play-level-game.png"))
    click(driver, "#resign")
    click(driver, "#confirm-yes")


def liar_record(number):
    """A record of game `number` of the test `seeds`: two moves, then Black resigns."""
    black, white = ("greedy", "random") if number % 2 == 1 else ("random", "greedy")
    return f"N+{black}\nN-{white}\nPI\n+\n+7776FU\nT0\n-3334FU\nT0\n%TORYO\nT0\n"


def engine_tests(driver, base, shots, work):
    """Engine tests spread over workers (issue 45): the operator makes an SPRT of the
    built-in engine against itself playing at random; a lying worker uploads a pair whose
    claimed results its records refute; an honest worker plays the rest. The test's page,
    followed live, shows the games rising, then the SPRT decided with its LLR bar at H1,
    Elo and the pairs, the workers (the liar's two games judged otherwise) and the games."""
    admin, worker_token = (os.path.join(work, f) for f in ("admin-token", "worker-token"))
    made = subprocess.run(
        [GYOKU, "test", "create", "--server", base.rstrip("/"), "--admin-token", admin,
         "--name", "seeds", "--engine", "greedy=builtin", "--engine", "random=builtin",
         "--option", "greedy:Seed=1", "--option", "random:Seed=2", "--option", "random:Style=random",
         "--byoyomi", "1s", "--pairs", "200", "--batch-pairs", "2", "--sprt", "elo0=0,elo1=50"],
        capture_output=True, text=True, timeout=60)
    print(f"engine tests (made): {made.stdout.strip()}")
    assert made.returncode == 0, made.stderr
    driver.get(base + "#/tests/seeds")
    text_of(driver, "test-status", lambda t: "running" in t and "0 of 400 games" in t)

    def worker_call(path, bearer, body):
        request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json",
                                                  "Authorization": f"Bearer {bearer}"})
        with urllib.request.urlopen(request, timeout=30) as r:
            return json.load(r)

    token = open(worker_token).read().strip()
    reg = worker_call("api/workers", token, {"name": "liar"})
    liar = f"{reg['worker']}:{reg['secret']}"
    batch = worker_call("api/workers/batch", liar, {"pairs": 1, "has": []})["batch"]
    for g in batch["games"]:
        n = g["number"]
        claimed = 1 if n % 2 == 1 else 2  # Black: the record has Black resign
        said = worker_call("api/workers/games", liar, {"batch": batch["id"], "number": n, "winner": claimed,
                                                       "reason": "checkmate", "record": liar_record(n)})
        assert said["agrees"] is False and said["counted"] is True, said
    text_of(driver, "test-disagreements", lambda t: "2 judged otherwise" in t)
    # The honest worker: each move 5 ms, so that the page is seen to follow the games.
    honest = subprocess.Popen(
        [GYOKU, "worker", "--server", base.rstrip("/"), "--token", worker_token, "--name", "honest",
         "--concurrency", "2", "--exit-when-idle",
         "--engine", f"greedy={GYOKU} engine --delay 5ms", "--engine", f"random={GYOKU} engine --delay 5ms"],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "worker.log"), "w"), start_new_session=True)
    try:
        seen = set()
        def followed(d):
            t = d.find_element(By.ID, "test-status").text
            m = re.search(r"(\d+) of 400 games", t)
            if m:
                seen.add(int(m.group(1)))
            return t if "finished" in t else None
        status = wait(driver, followed, 180)
        assert honest.wait(60) == 0
    finally:
        if honest.poll() is None:
            honest.kill()
    sprt = text_of(driver, "test-sprt", lambda t: "H1 accepted" in t)
    share = float(driver.find_element(By.CSS_SELECTOR, "#llr-bar .llr-mark").get_attribute("data-share"))
    elo = text_of(driver, "test-elo")
    workers = {r.get_attribute("data-worker").split("-")[0]: r.text
               for r in driver.find_elements(By.CSS_SELECTOR, "#test-workers tr[data-worker]")}
    games = driver.find_elements(By.CSS_SELECTOR, "#test-games tr[data-game]")
    warned = driver.find_elements(By.CSS_SELECTOR, "#test-games tr.warn")
    print(f"engine tests: {status}; seen at {sorted(seen)[:8]}...; {sprt}; LLR bar at {share}; {elo}; "
          f"workers {workers}; {len(games)} games listed, {len(warned)} judged otherwise")
    assert len(seen) >= 3, seen
    assert share == 1.0, share
    assert "Elo +" in elo and "pairs [" in elo, elo
    assert set(workers) == {"liar", "honest"}, workers
    assert workers["liar"].split()[1:3] == ["2", "2"], workers["liar"]
    assert len(warned) == 2, len(warned)
    driver.save_screenshot(os.path.join(shots, "engine-test.png"))
    driver.get(base + "#/tests")
    listed = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#test-list tr[data-test='seeds']"))
    print(f"engine tests (list): {listed[0].text}")
    assert "finished" in listed[0].text, listed[0].text
    driver.save_screenshot(os.path.join(shots, "engine-tests.png"))


def main():
    global GYOKU
    gyoku = os.path.abspath(sys.argv[1])
    GYOKU = gyoku
    shots = os.path.abspath(sys.argv[2])
    os.makedirs(shots, exist_ok=True)
    work = scratch_dir("gyoku-web-e2e-")
    csa, http = free_port(), free_port()
    event_file = os.path.join(work, "club.toml")
    with open(event_file, "w") as f:
        f.write('name = "club"\ngame = "club-60-0"\nformat = "swiss"\nrounds = 2\n'
                'participants = ["club1", "club2", "club3", "club4"]\n')
    # An event whose second player never comes: the organiser's view.
    cup_file = os.path.join(work, "cup.toml")
    with open(cup_file, "w") as f:
        f.write('name = "cup"\ngame = "cup-60-0"\nformat = "round-robin"\n'
                'forfeit_after = 600\nparticipants = ["cup1", "cup2"]\n')
    server = subprocess.Popen(
        [gyoku, "serve", "--csa", f"127.0.0.1:{csa}", "--http", f"127.0.0.1:{http}",
         "--data-dir", work, "--max-moves", str(MAX_MOVES), "--reconnect-grace", "9s",
         "--schedule", "floodgate-300-10F=:00,:30", "--ratings-every", "1",
         "--event-file", event_file, "--event-file", cup_file,
         "--engine", "fsf=/usr/games/fairy-stockfish", "--engine-level", f"fsf:1=movetime={LEVEL_MS};Skill Level=0",
         "--engine-level", "fsf:2=movetime=1000;Skill Level=5",
         "--analysis-engine", "fsf", "--analysis-ms", str(ANALYSIS_MS),
         "--admin-token-file", os.path.join(work, "admin-token"),
         "--worker-token-file", os.path.join(work, "worker-token"), "--worker-lease", "10s"],
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
        if os.environ.get("WEB_E2E_ONLY") == "play":
            play(driver, base, shots)
            return
        if os.environ.get("WEB_E2E_ONLY") == "event":
            event(driver, base, shots, csa)
            return
        if os.environ.get("WEB_E2E_ONLY") == "league":
            league(driver, base, shots, csa)
            return
        if os.environ.get("WEB_E2E_ONLY") == "accounts":
            accounts(driver, base, shots)
            return
        if os.environ.get("WEB_E2E_ONLY") == "level":
            engine_level(driver, base, shots)
            return
        if os.environ.get("WEB_E2E_ONLY") == "analysis":
            analysis(driver, base, shots)
            return
        if os.environ.get("WEB_E2E_ONLY") == "tests":
            engine_tests(driver, base, shots, work)
            return
        # --- watch a live engine game -------------------------------------------------
        driver.get(base)
        wait(driver, lambda d: d.find_element(By.ID, "game-list"))
        # No game yet: the home page says where to start.
        start = wait(driver, lambda d: d.find_element(By.ID, "start-playing"))
        print(f"games (none yet): '{driver.find_element(By.ID, 'no-games').text}'")
        assert start.get_attribute("href").endswith("#/play"), start.get_attribute("href")
        driver.save_screenshot(os.path.join(shots, "games-empty.png"))
        for name, engine in (("gps", "/usr/games/gpsusi"), ("fsf", "/usr/games/fairy-stockfish")):
            clients.append(subprocess.Popen(
                [gyoku, "csa-client", "--engine", engine, "--host", "127.0.0.1", "--port", str(csa),
                 "--id", name, "--password", f"pw-{name}", "--game", "web-5-1",
                 "--out", os.path.join(work, name)],
                stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, f"{name}.log"), "w"),
                start_new_session=True))
        # The list refreshes by itself: the game appears, and is followed.
        link = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#game-list tr[data-id] a"), 60)[0]
        # Each game with its start and time control; a filter by name, and one that keeps none.
        row = driver.find_element(By.CSS_SELECTOR, "#game-list tr[data-id]").text
        print(f"games: {row!r}; {driver.find_element(By.ID, 'game-count').text}")
        assert ("gps vs fsf" in row or "fsf vs gps" in row) and "5 s + 1 s byoyomi" in row and "web-5-1" in row and "/" in row, row
        box = driver.find_element(By.ID, "game-filter")
        box.send_keys("no-such-player")
        none = text_of(driver, "no-games", lambda t: "No game matches" in t)
        box.clear()
        box.send_keys("FSF")
        wait(driver, lambda d: not d.find_elements(By.ID, "no-games")
             and d.find_elements(By.CSS_SELECTOR, "#game-list tr[data-id]"))
        print(f"games (filtered): '{none}', then FSF: {driver.find_element(By.ID, 'game-count').text}")
        box.clear()
        box.send_keys(" ")
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
        # Letters on the pieces: the moves in Western notation (`P-7f`), as the CLI writes.
        assert moves == [f"{m['ply']} {m['western']}" for m in stored], (moves[:3], stored[:3])
        assert driver.find_elements(By.CSS_SELECTOR, "#verdicts tr[data-preset]"), "no impasse panel"
        chart = wait(driver, lambda d: d.execute_script(
            "const i = document.getElementById('chart'); return i && i.complete && i.naturalWidth"))
        print(f"watch: the impasse chart is drawn ({chart} px wide)")
        driver.save_screenshot(os.path.join(shots, "watch-ended.png"))

        # --- the league: the scheduled round on the games page, the rating list -----------
        league(driver, base, shots, csa)
        event(driver, base, shots, csa)
        accounts(driver, base, shots)
        engine_level(driver, base, shots)
        analysis(driver, base, shots)
        engine_tests(driver, base, shots, work)

        play(driver, base, shots)

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
        # Letters on the pieces: the moves in Western notation (△同　銀 is Sx2b).
        listed = driver.find_element(By.ID, "moves").text
        assert "4 Sx2b" in listed and "同" not in listed, listed
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
        assert "unknown record format" in error, error
        # A record pasted as text (a CSA record, Black resigning at ply 3).
        box = driver.find_element(By.ID, "record-text")
        box.send_keys("PI\n+\n+7776FU\n-3334FU\n%TORYO\n")
        driver.find_element(By.ID, "judge-text").click()
        ending = wait(driver, lambda d: (lambda e: e.text if e and "ply 3" in e.text else None)(
            (d.find_elements(By.ID, "ending") or [None])[0]))
        print(f"judge (pasted CSA text): {ending}")
        assert "White wins" in ending and "resignation" in ending, ending
        driver.save_screenshot(os.path.join(shots, "judge-pasted.png"))

        # --- the impasse calculator -----------------------------------------------------
        no_cjk_font(base, shots)
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
        # Each rule set named in words, not by its preset's name.
        assert presets["jsa"].startswith("JSA (professional)"), presets["jsa"]
        assert presets["saw"].startswith("SAW (24-point count)"), presets["saw"]
        assert driver.find_element(By.CSS_SELECTOR, "#counts tr[data-side=black]").text
        # Article 9's condition: each side's mate search, in words.
        mates = {r.get_attribute("data-side"): r.text for r in
                 driver.find_elements(By.CSS_SELECTOR, "#mate tr[data-side]")}
        print(f"calculator: can still mate: {mates}")
        phrases = ("mate found in", "no mate within the budget", "no mate (proved)")
        assert set(mates) == {"black", "white"} and all(
            any(p in text for p in phrases) for text in mates.values()), mates
        driver.save_screenshot(os.path.join(shots, "calculator.png"))
        # The board editor: a position set up by hand, counted again after every edit.
        box = driver.find_element(By.ID, "sfen")
        box.clear()
        box.send_keys(DECLARE_SFEN)
        click(driver, "#edit")
        wait(driver, lambda d: d.find_element(By.ID, "editor"))
        black = lambda: wait(driver, lambda d: d.execute_script(
            "const r = document.querySelector('#counts tr[data-side=black]');"
            "return r ? [...r.children].map(c => c.textContent) : null"))
        steps = []
        for tool, target, zone, points in (("erase", "1b", "9", "23"), ("bG", "1b", "10", "24"),
                                           (None, "#hand-b-P-plus", "10", "25")):
            if tool:
                click(driver, f"[data-tool={tool}]")
                click(driver, f"#editor [data-square='{target}']")
            else:
                click(driver, target)
            wait(driver, lambda d: black()[2:4] == [zone, points])
            steps.append(f"{tool or 'pawn in hand +1'} {target}: zone {zone}, points {points}")
        sfen_now = driver.find_element(By.ID, "sfen").get_attribute("value")
        print(f"calculator (board editor): {'; '.join(steps)}; {sfen_now}")
        # A king taken off: the page says the position has none, and keeps the move number.
        assert not driver.find_element(By.ID, "king-warning").text
        click(driver, "[data-tool=erase]")
        click(driver, "#editor [data-square='5b']")
        warning = text_of(driver, "king-warning", lambda t: t != "")
        print(f"calculator (king erased): {warning}")
        assert "No king for Black" in warning, warning
        assert sfen_now.startswith("8R/4K3G/") and " b 11P" in sfen_now, sfen_now
        driver.save_screenshot(os.path.join(shots, "calculator-editor.png"))

        # --- Japanese, on a phone-sized screen -------------------------------------------
        driver.set_window_size(390, 844)
        driver.get(base + "#/")
        driver.find_element(By.ID, "lang").click()
        wait(driver, lambda d: d.find_element(By.CSS_SELECTOR, "nav a[data-t=games]").text == "対局")
        # A finished game (a replay the page's players left is still being played).
        rows = wait(driver, lambda d: [r for r in d.find_elements(By.CSS_SELECTOR, "#game-list tr[data-id]")
                                       if "終局" in r.text])
        rows[0].find_element(By.TAG_NAME, "a").click()
        wait(driver, lambda d: "終局" in d.find_element(By.ID, "game-status").text)
        # No raw code in Japanese: no snake_case word anywhere on the game page.
        codes = driver.execute_script(
            "return (document.body.innerText.match(/\\b[a-z]+(?:_[a-z]+)+\\b/g) || [])")
        print(f"phone (Japanese game page): raw codes shown: {codes}; {driver.find_element(By.ID, 'game-title').text}")
        assert not codes, codes
        driver.save_screenshot(os.path.join(shots, "phone-ja.png"))
        # At 390 px nothing is wider than the screen: the list, a game, the calculator.
        widths = {}
        for page, ready in (("#/", "game-list"), (None, "game"), ("#/calculator", "verdicts")):
            if page:
                driver.get(base + page)
            wait(driver, lambda d: d.find_element(By.ID, ready))
            time.sleep(0.3)
            widths[page or "game"] = driver.execute_script("return document.documentElement.scrollWidth")
            if widths[page or "game"] > 390:
                print(driver.execute_script("""return [...document.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > 390).slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right)).join(' | ')"""))
            if page == "#/":
                driver.save_screenshot(os.path.join(shots, "phone-list.png"))
                link = wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#game-list tr[data-id] a"))[0]
                link.click()
        print(f"phone: document widths at 390 px: {widths}")
        assert all(w <= 390 for w in widths.values()), widths
        # Playing on the phone: Resign is on the first screen, under the board.
        start_game(driver, base, opponent="builtin", rules="csa", color="black")
        top, bottom, screen = driver.execute_script(
            "const b = document.getElementById('resign').getBoundingClientRect();"
            "return [b.top, b.bottom, window.innerHeight]")
        print(f"phone (playing): Resign at {top:.0f}-{bottom:.0f} px of a {screen} px screen")
        assert bottom <= screen, (top, bottom, screen)
        driver.save_screenshot(os.path.join(shots, "phone-play.png"))
        click(driver, "#resign")
        click(driver, "#confirm-yes")
        text_of(driver, "ending", lambda t: "手" in t or "ply" in t)
    finally:
        driver.quit()
        for c in clients:
            stop(c)
        stop(server)
    print(f"web page: watch, play (a whole game, refusal, foul, declarations), judge (drop, foul, error), "
          f"calculator and phone/Japanese passed in chromium; screenshots in {shots}")


if __name__ == "__main__":
    main()
