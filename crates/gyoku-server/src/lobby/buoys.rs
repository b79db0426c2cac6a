//! Buoy games (`%%SETBUOY`, `%%FORK`): games that start from set moves, a set number of
//! times, bounded per player and in all. [`Buoys`] keeps them and decides what may be set,
//! started or deleted; the lobby's part (the end of this file) answers the commands.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

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

/// The buoy games set, and how many each address has set since the server started.
#[derive(Debug, Default)]
pub(super) struct Buoys {
    games: BTreeMap<String, StoredBuoy>,
    by_address: HashMap<IpAddr, usize>,
}

impl Buoys {
    /// The buoys stored before a restart.
    pub(super) fn new(stored: Vec<StoredBuoy>) -> Buoys {
        Buoys {
            games: stored.into_iter().map(|b| (b.name.clone(), b)).collect(),
            by_address: HashMap::new(),
        }
    }

    /// Whether `name` is a buoy set now.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.games.contains_key(name)
    }

    /// How many buoys are set.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.games.len()
    }

    /// How many games the buoy `name` may still start.
    pub(super) fn count(&self, name: &str) -> Option<u32> {
        self.games.get(name).map(|b| b.count)
    }

    /// Sets the buoy `name` (its `moves` from the start position, `count` games) for
    /// `owner` at `address`: the change to store, or why it may not be.
    pub(super) fn set(
        &mut self,
        name: &str,
        moves: &str,
        count: u32,
        owner: &str,
        address: Option<IpAddr>,
    ) -> Result<Change, String> {
        if !is_buoy_name(name) {
            return Err(format!("wrong buoy game name: {name}"));
        }
        if self.games.contains_key(name) {
            return Err(format!("duplicated buoy game name: {name}"));
        }
        if count < 1 {
            return Err(format!("invalid count: {count}"));
        }
        let from_address = address.map_or(0, |a| self.by_address.get(&a).copied().unwrap_or(0));
        if self.games.len() >= MAX_BUOYS
            || self.games.values().filter(|b| b.owner == owner).count() >= MAX_BUOYS_PER_PLAYER
            || from_address >= MAX_BUOYS_PER_ADDRESS
        {
            return Err(format!(
                "too many buoy games: at most {MAX_BUOYS_PER_PLAYER} a player, \
                 {MAX_BUOYS_PER_ADDRESS} from one address, {MAX_BUOYS} in all"
            ));
        }
        if split_moves(moves)
            .and_then(|m| play_moves(&Position::startpos(), &m))
            .is_none()
        {
            return Err(format!("wrong moves: {moves}"));
        }
        let buoy = StoredBuoy {
            name: name.to_string(),
            moves: moves.to_string(),
            owner: owner.to_string(),
            count,
        };
        let change = stored(&buoy);
        self.games.insert(name.to_string(), buoy);
        if let Some(a) = address {
            *self.by_address.entry(a).or_default() += 1;
        }
        Ok(change)
    }

    /// A game of the buoy `name` starts: its moves, and the change to store (one game
    /// fewer; the buoy gone at none).
    pub(super) fn start(&mut self, name: &str) -> Option<(Vec<(String, u32)>, Change)> {
        let b = self.games.get_mut(name)?;
        let moves = split_moves(&b.moves).unwrap_or_default();
        b.count = b.count.saturating_sub(1);
        let change = stored(b);
        if b.count == 0 {
            self.games.remove(name);
        }
        Some((moves, change))
    }

    /// Deletes the buoy `name` for `by`, the one who set it: the change to store, or why
    /// not.
    pub(super) fn delete(&mut self, name: &str, by: &str) -> Result<Change, String> {
        match self.games.get(name) {
            None => Err(format!("buoy game not found: {name}")),
            Some(b) if b.owner != by => Err(format!(
                "you are not allowed to delete a buoy game that you did not set: {name}"
            )),
            Some(_) => {
                let mut b = self.games.remove(name).expect("found");
                b.count = 0;
                Ok(stored(&b))
            }
        }
    }
}

/// The change that stores `b` as it is (a count of 0 deletes it).
fn stored(b: &StoredBuoy) -> Change {
    Change::Buoy {
        name: b.name.clone(),
        moves: b.moves.clone(),
        owner: b.owner.clone(),
        count: b.count,
    }
}

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

    /// `%%SETBUOY`: the buoy set (and its game started at once if two wait for it), or
    /// the player told why not.
    pub(super) fn set_buoy(
        &mut self,
        conn: ConnId,
        name: &str,
        moves: &str,
        count: u32,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let c = &self.people.conns[&conn];
        match self.buoys.set(name, moves, count, c.name(), c.address) {
            Err(why) => return tell(out, conn, ServerLine::Error(why)),
            Ok(change) => out.push(Output::Store(change)),
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

    /// `%%DELETEBUOY`: by the one who set it.
    pub(super) fn delete_buoy(&mut self, conn: ConnId, name: &str, out: &mut Vec<Output>) {
        let owner = self.people.conns[&conn].name();
        match self.buoys.delete(name, owner) {
            Err(why) => tell(out, conn, ServerLine::Error(why)),
            Ok(change) => {
                out.push(Output::Store(change));
                tell(out, conn, ok(X1Tag::DeleteBuoy));
            }
        }
    }
}
