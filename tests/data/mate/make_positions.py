"""Builds tests/data/mate/positions.tsv: positions from the repository's records (their
last plies; the repository's own and Kifu for JS's, both MIT) and generated tsume-like
positions (seeded), each with cshogi's answer.

Usage, from the repository's root, with cshogi (PyPI) installed:
    python3 tests/data/mate/make_positions.py target/release/gyoku
"""
import cshogi, glob, random, subprocess, sys
G = sys.argv[1]
rows = []
seen = set()
def verdict(sfen):
    b = cshogi.Board(sfen)
    m1 = b.mate_move_in_1ply()
    if m1: return 'mate 1', cshogi.move_to_usi(m1)
    m3 = b.mate_move(3)
    if m3: return 'mate 3', cshogi.move_to_usi(m3)
    d = cshogi.DfPn(); d.set_max_search_node(1_000_000)
    if d.search(b):
        pv = d.get_pv(b)
        return 'mate', ' '.join(cshogi.move_to_usi(m) for m in pv)
    return 'none', ''
files = sorted(glob.glob('tests/data/records/kifu-for-js/*/*.*') + glob.glob('tests/data/records/kif/*') + glob.glob('tests/data/records/csa/*'))
for f in files:
    if f.endswith(('LICENSE','README.md','.json')): continue
    r = subprocess.run([G, 'convert', f, '--to', 'usi'], capture_output=True, text=True)
    if r.returncode: continue
    line = r.stdout.splitlines()[0].split()
    if 'moves' not in line: continue
    i = line.index('moves'); start = ' '.join(line[2:i]) if line[1]=='sfen' else 'startpos'
    mv = [m for m in line[i+1:] if len(m) >= 4 and m not in ('resign','timeout','break','rep_draw')]
    for k in range(1, 8):
        if k > len(mv): break
        b = cshogi.Board() if start=='startpos' else cshogi.Board(start)
        ok = True
        for m in mv[:len(mv)-k]:
            try: b.push_usi(m)
            except Exception: ok=False; break
        if not ok or b.is_game_over() or b.is_check(): continue
        s = b.sfen()
        if s in seen: continue
        seen.add(s)
        v, pv = verdict(s)
        rows.append((s, v, pv, f.split('/records/')[1] + f' ({k} plies before its end)'))
    print(f, len(rows), flush=True)
# Generated: a White king on ranks 1-3, a few Black pieces near it, Black's hand.
rnd = random.Random(2026_11_28)
roles = 'PLNSGBR'
made = {'mate 1':0,'mate 3':0,'mate':0,'none':0}
tries = 0
while tries < 3000 and min(made.values()) < 12:
    tries += 1
    board = [['']*9 for _ in range(9)]
    kf, kr = rnd.randrange(9), rnd.randrange(3)
    board[kr][kf] = 'k'
    for _ in range(rnd.randrange(1,4)):
        r, f = rnd.randrange(0,5), rnd.randrange(9)
        if board[r][f]: continue
        p = rnd.choice(['P','S','G','+R','+B','N','L','s','g','p','l','n'])
        if p in ('P','L') and r == 0: continue
        if p == 'N' and r < 2: continue
        if p in ('p','l','n'): p = rnd.choice(['p','g','s'])
        board[r][f] = p
    hand = ''.join(sorted(rnd.sample('GGSSRBNLP', rnd.randrange(1,4)), key='RBGSNLP'.index))
    def row(rw):
        out=''; e=0
        for c in rw:
            if not c: e+=1
            else:
                if e: out+=str(e); e=0
                out+=c
        if e: out+=str(e)
        return out
    sf = '/'.join(row(board[r][::-1] if False else board[r]) for r in range(9))
    h = {}
    for c in hand: h[c]=h.get(c,0)+1
    hs = ''.join((str(n) if n>1 else '')+c for c,n in h.items())
    s = f'{sf} b {hs} 1'
    try:
        b = cshogi.Board(s)
    except Exception:
        continue
    if b.is_check() or s in seen: continue
    # legality: White not in check already, no nifu etc.
    r = subprocess.run([G,'moves','--sfen',s,'--lenient'],capture_output=True,text=True)
    if r.returncode: continue
    b = cshogi.Board(s)
    if b.mate_move_in_1ply():
        if made['mate 1'] >= 12: continue
    elif b.mate_move(3):
        if made['mate 3'] >= 12: continue
    elif made['mate'] >= 12 and made['none'] >= 12:
        continue
    v, pv = verdict(s)
    key = v
    if made[key] >= 12: continue
    made[key]+=1; seen.add(s)
    print('generated', made, flush=True)
    rows.append((s, v, pv, 'generated here (seeded), no Black king: a tsume'))
with open('tests/data/mate/positions.tsv','w') as out:
    out.write('# Mate-search table: positions with their answer under cshogi 1.1.0 (PyPI), taken 2026-11-28.\n')
    out.write('# Columns: sfen; answer (mate 1 | mate 3: cshogi mate_move_in_1ply / mate_move(3), the shortest;\n')
    out.write('# mate: cshogi DfPn found one, longer than 3 plies; none: cshogi DfPn found none in 1,000,000 nodes);\n')
    out.write('# cshogi\'s line (its first move for mate 1 and 3); where the position comes from.\n')
    out.write('# Made by tests/data/mate/make_positions.py (the records\' last plies; seeded tsume positions).\n')
    for r in rows: out.write('\t'.join(r)+'\n')
print(len(rows), made, {v: sum(1 for r in rows if r[1]==v) for v in ('mate 1','mate 3','mate','none')})
