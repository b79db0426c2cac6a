//! Buoy games (`%%SETBUOY`, `%%FORK`): games that start from set moves, a set number of
//! times, bounded per player and in all.

use gyoku::Position;
use gyoku_proto::csa_line::{ServerLine, X1Tag};

use super::Lobby;
use super::change::{Change, StoredBuoy};
use super::io::{
    ConnId, MAX_BUOYS, MAX_BUOYS_PER_ADDRESS, MAX_BUOYS_PER_PLAYER, Now, Output, ok, tell,
    tell_lines,
};
use super::names::is_buoy_name;
use super::spec::{play_moves, split_moves};

impl Lobby {
    pub(super) fn fork(
        &mut self,
        conn: ConnId,
        source: &str,
        new_game: Option<String>,
        nth: Option<u32>,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let Some(g) = self
            .rooms
            .by_id
            .get(source)
            .and_then(|k| self.rooms.games.get(k))
        else {
            tell(
                out,
                conn,
                ServerLine::Error(format!("wrong source game name: {source}")),
            );
            return;
        };
        let all: Vec<(String, u32)> = g
            .initial_moves
            .iter()
            .cloned()
            .chain(
                g.moves
                    .iter()
                    .map(|(m, t, _)| (m.clone(), u32::try_from(*t).unwrap_or(u32::MAX))),
            )
            .collect();
        let nth = nth.map_or(all.len().saturating_sub(1), |n| n as usize);
        if nth > all.len() || nth < 1 {
            tell(
                out,
                conn,
                ServerLine::Error(format!(
                    "number of moves to fork is out of range: {}.",
                    all.len()
                )),
            );
            return;
        }
        let moves: String = all[..nth]
            .iter()
            .map(|(m, t)| format!("{m},T{t}"))
            .collect();
        let new_game = match new_game {
            Some(n) => n,
            None => {
                let parsed = source.split('+').nth(1).and_then(|n| {
                    let (rest, byo) = n.rsplit_once('-')?;
                    let (name, total) = rest.rsplit_once('-')?;
                    (!name.contains('-'))
                        .then(|| (name.to_string(), total.to_string(), byo.to_string()))
                });
                let Some((name, total, byo)) = parsed else {
                    tell(
                        out,
                        conn,
                        ServerLine::Error(format!(
                            "wrong source game name to make a new buoy game name: {source}"
                        )),
                    );
                    return;
                };
                let n = format!("buoy_{name}_{nth}-{total}-{byo}");
                tell_lines(
                    out,
                    conn,
                    [ServerLine::ForkName(n.clone()), ok(X1Tag::Fork)],
                );
                n
            }
        };
        self.set_buoy(conn, &new_game, &moves, 1, now, out);
    }

    pub(super) fn set_buoy(
        &mut self,
        conn: ConnId,
        name: &str,
        moves: &str,
        count: u32,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        if !is_buoy_name(name) {
            tell(
                out,
                conn,
                ServerLine::Error(format!("wrong buoy game name: {name}")),
            );
            return;
        }
        if self.buoys.contains_key(name) {
            tell(
                out,
                conn,
                ServerLine::Error(format!("duplicated buoy game name: {name}")),
            );
            return;
        }
        if count < 1 {
            tell(
                out,
                conn,
                ServerLine::Error(format!("invalid count: {count}")),
            );
            return;
        }
        let owner = self.people.conns[&conn].name();
        let address = self.people.conns[&conn].address;
        let from_address =
            address.map_or(0, |a| self.buoys_by_address.get(&a).copied().unwrap_or(0));
        if self.buoys.len() >= MAX_BUOYS
            || self.buoys.values().filter(|b| b.owner == *owner).count() >= MAX_BUOYS_PER_PLAYER
            || from_address >= MAX_BUOYS_PER_ADDRESS
        {
            tell(
                out,
                conn,
                ServerLine::Error(format!(
                    "too many buoy games: at most {MAX_BUOYS_PER_PLAYER} a player, \
                     {MAX_BUOYS_PER_ADDRESS} from one address, {MAX_BUOYS} in all"
                )),
            );
            return;
        }
        if split_moves(moves)
            .and_then(|m| play_moves(&Position::startpos(), &m))
            .is_none()
        {
            tell(
                out,
                conn,
                ServerLine::Error(format!("wrong moves: {moves}")),
            );
            return;
        }
        let buoy = StoredBuoy {
            name: name.to_string(),
            moves: moves.to_string(),
            owner: self.people.conns[&conn].name().to_string(),
            count,
        };
        out.push(Output::Store(Change::Buoy {
            name: buoy.name.clone(),
            moves: buoy.moves.clone(),
            owner: buoy.owner.clone(),
            count,
        }));
        self.buoys.insert(name.to_string(), buoy);
        if let Some(a) = address {
            *self.buoys_by_address.entry(a).or_default() += 1;
        }
        tell(out, conn, ok(X1Tag::SetBuoy));
        // Two players already waiting for it start now.
        let waiting: Vec<ConnId> = self.people.waiting.for_game(name).collect();
        if let Some(&p1) = waiting.first()
            && let Some(p2) = self.find_rival(p1, name)
        {
            let turn = match self.people.conns[&p1].sente {
                Some(true) => '+',
                Some(false) => '-',
                None => '*',
            };
            self.pair(p1, turn, p2, name, now, out);
        }
    }
}
