//! Matching: players who name the same game are paired, colours decided as shogi-server
//! decides them, and the game proposed with a Game_ID of its own; a suspended game waits
//! for its two players.

use gyoku::{Preset, RuleSet};
use gyoku_proto::csa::GameName;
use gyoku_proto::csa_line::ServerLine;

use super::Lobby;
use super::clock_extras::ClockExtras;
use super::conns::Status;
use super::io::{ConnId, Now, Output, tell};
use super::names::{is_buoy_name, is_floodgate_name, rules_of_name};
use super::spec::{GameSpec, Replay, limited, login_proof, same_login, start_position};

impl Lobby {
    pub(super) fn game_command(
        &mut self,
        conn: ConnId,
        challenge: bool,
        game: &str,
        turn: char,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let parsed = GameName::parse(game).filter(|g| g.name == game);
        if parsed.is_none() {
            tell(
                out,
                conn,
                ServerLine::Error(format!("bad game name: {game}.")),
            );
            tell(
                out,
                conn,
                ServerLine::Error(
                    "game name should consist of three parts like game-1500-60.".into(),
                ),
            );
            return;
        }
        let c = self.people.conns.get_mut(&conn).expect("logged in");
        if !c.who.kind().is_page()
            && self
                .setups
                .iter()
                .any(|(name, setup)| name == game && setup.web_only)
        {
            tell(
                out,
                conn,
                ServerLine::Error(format!("the game {game} is played from the web page only")),
            );
            return;
        }
        if !matches!(c.status, Status::Connected | Status::GameWaiting) {
            let refused = c.status.refuses("GAME", "connected or game_waiting");
            tell(out, conn, refused);
            return;
        }
        let me = c.name().to_string();
        if let Some(id) = self.suspended_for(game, &me) {
            if let Err(refused) = self.played_it(conn, &id) {
                tell(out, conn, ServerLine::Error(refused));
                return;
            }
            return self.resume(conn, &id, now, out);
        }
        let c = self.people.conns.get_mut(&conn).expect("logged in");
        c.sente = match turn {
            '+' => Some(true),
            '-' => Some(false),
            _ => None,
        };
        if is_floodgate_name(game) && turn != '*' {
            tell(
                out,
                conn,
                ServerLine::Error(format!(
                    "You are not allowed to specify TEBAN {turn} for the game {game}"
                )),
            );
            return;
        }
        if c.sente.is_none() && parsed.as_ref().is_some_and(|g| g.handicap.is_some()) {
            tell(
                out,
                conn,
                ServerLine::Error(
                    "Random turn preference is not allowed for handicapped games".into(),
                ),
            );
            return;
        }
        let sente = c.sente;
        // Out of the queue of the game it waited for (if any) before naming the new one.
        self.people.set_status(conn, Status::Connected);
        let c = self.people.conns.get_mut(&conn).expect("logged in");
        c.sente = sente;
        c.game_name = game.to_string();
        if self.is_event_game(game) {
            return self.event_waits(conn, game, now, out);
        }
        if self.is_scheduled(game) {
            // Paired at the next round, with everyone waiting then (at once if this
            // round's proposal to it was withdrawn and another of the round waits).
            self.people.set_status(conn, Status::GameWaiting);
            self.stand_in(conn, game, now, out);
            return;
        }
        match self.find_rival(conn, game) {
            Some(rival) if !is_buoy_name(game) || self.buoys.contains(game) => {
                self.pair(conn, turn, rival, game, now, out);
            }
            Some(_) => self.people.set_status(conn, Status::GameWaiting),
            None if challenge => {
                tell(
                    out,
                    conn,
                    ServerLine::Error(format!("can't find rival for {game}")),
                );
                let c = self.people.conns.get_mut(&conn).expect("logged in");
                c.game_name.clear();
                c.sente = None;
            }
            None => self.people.set_status(conn, Status::GameWaiting),
        }
    }

    pub(super) fn find_rival(&self, me: ConnId, game: &str) -> Option<ConnId> {
        let c = &self.people.conns[&me];
        let want = c.sente.map(|s| !s);
        self.people.waiting.for_game(game).find(|&id| {
            let r = &self.people.conns[&id];
            id != me
                && (want.is_none() || r.sente.is_none() || r.sente == want)
                && r.who != c.who
                && self.suspended_for(game, r.name()).is_none()
        })
    }

    /// Two players meet: decide colours as shogi-server does and propose the game.
    pub(super) fn pair(
        &mut self,
        me: ConnId,
        my_turn: char,
        rival: ConnId,
        game: &str,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let rival_sente = self.people.conns[&rival].sente;
        let me_black = match (my_turn, rival_sente) {
            ('*', None) => self.ids.coin(),
            (_, Some(true)) => false,
            (_, Some(false)) => true,
            ('+', None) => true,
            _ => false,
        };
        let (black, white) = if me_black { (me, rival) } else { (rival, me) };
        let mut initial = Vec::new();
        if is_buoy_name(game) {
            let (moves, change) = self.buoys.start(game).expect("checked by the caller");
            initial = moves;
            out.push(Output::Store(change));
        }
        self.propose(game, [black, white], initial, None, now, out);
    }

    pub(super) fn rules_for(&self, preset: Preset) -> (RuleSet, u32) {
        let rules = limited(
            preset.rules(),
            self.config.max_moves,
            self.config.strict_csa_server,
        );
        (rules, rules.move_limit.map_or(0, |l| l.plies))
    }

    /// Game_IDs already issued (by this server before a restart): none is issued again.
    /// Each is `<event>+<game>+<black>+<white>+YYYYMMDDhhmmss`; others are ignored.
    pub fn remember_game_ids(&mut self, ids: impl IntoIterator<Item = String>) {
        self.ids.remember(ids);
    }

    pub(super) fn next_game_id(
        &mut self,
        game: &str,
        black: &str,
        white: &str,
        now: Now,
    ) -> String {
        self.ids
            .game_id(&self.config.event, [game, black, white], now.wall)
    }

    pub(super) fn propose(
        &mut self,
        game: &str,
        [black, white]: [ConnId; 2],
        initial: Vec<(String, u32)>,
        replay: Option<Replay>,
        now: Now,
        out: &mut Vec<Output>,
    ) {
        let name = GameName::parse(game).expect("checked by the caller");
        let setup = self
            .setups
            .iter()
            .find(|(n, _)| n == game)
            .map(|(_, s)| s.clone())
            .unwrap_or_default();
        // The one place a game's name is read for its rules: a CSA client's choice, unless
        // the game was set up with its own.
        let named = rules_of_name(game);
        let event_preset = self
            .competitions
            .events
            .get(game)
            .and_then(|l| l.event.file.preset.as_deref()?.parse().ok());
        let preset = setup
            .preset
            .or(event_preset)
            .or(named.preset)
            .unwrap_or(self.config.rules);
        let fouls = setup.fouls.or(named.fouls);
        let max_moves = setup.max_moves.unwrap_or_else(|| self.rules_for(preset).1);
        let names = [
            self.people.conns[&black].name().to_string(),
            self.people.conns[&white].name().to_string(),
        ];
        let id = self.next_game_id(game, &names[0], &names[1], now);
        let spec = GameSpec {
            id,
            name: game.to_string(),
            preset,
            fouls,
            names,
            max_moves,
            total: name.total_seconds,
            byoyomi: name.byoyomi_seconds,
            increment: name.increment_seconds,
            start: setup.start.unwrap_or_else(|| start_position(name.handicap)),
            initial_moves: initial,
            moves: Vec::new(),
            started_at: now.wall.format("%Y/%m/%d %H:%M:%S").to_string(),
            main_times: replay.as_ref().and_then(|r| r.main_times),
            // A web page's game sets its own; an event's games have the file's.
            clock: match self.competitions.events.get(game) {
                Some(live) if setup.clock == ClockExtras::default() => live.event.file.clock(),
                _ => setup.clock,
            },
            replay_of: replay.map(|r| r.of),
            rating_ids: [black, white].map(|p| {
                login_proof(
                    self.people.conns[&p]
                        .rating_id()
                        .map(|k| k.as_str().to_string())
                        .as_ref(),
                )
            }),
            kinds: [black, white].map(|p| self.people.conns[&p].who.kind()),
            resume_keys: [None, None],
        };
        self.open(spec, [black, white], false, now, out);
    }

    /// The suspended game named `game` that `player` plays in, if any.
    pub(super) fn suspended_for(&self, game: &str, player: &str) -> Option<String> {
        self.suspended.find(game, player).map(str::to_string)
    }

    /// Whether `conn` logged in as the player of the suspended game `id` did: the same
    /// rating id (the same password), or none as then.
    fn played_it(&self, conn: ConnId, id: &str) -> Result<(), String> {
        let refused = || {
            format!(
                "the suspended game {id} is taken up only by the player who played it, \
                 logged in as then (with the same password, or with none)"
            )
        };
        let (Some(spec), Some(c)) = (self.suspended.get(id), self.people.conns.get(&conn)) else {
            return Err(refused());
        };
        let seat = usize::from(spec.names[0] != c.name());
        // A player from the web page is never taken up again by a login that says its
        // name: the kinds must agree too.
        let as_then = spec.kinds[seat] == c.who.kind()
            && same_login(
                spec.rating_ids[seat].as_ref(),
                c.rating_id().map(|k| k.as_str().to_string()).as_ref(),
            );
        if !as_then {
            return Err(refused());
        }
        // Without a password a login proves nothing: the side's reconnect token does.
        let passwordless = spec.rating_ids[seat].as_deref() == Some("");
        if passwordless
            && spec.resume_keys[seat].is_some()
            && self.people.resume_proofs.get(&conn).map(String::as_str) != Some(id)
        {
            return Err(format!(
                "the suspended game {id} was played without a password: it is taken up \
                 only with its reconnect token (LOGIN {} <password> reconnect:{id}+<token>)",
                c.name()
            ));
        }
        Ok(())
    }

    /// A player of a suspended game asks for it: it waits for the other player, and once
    /// both are here the game is proposed again with its moves and clocks.
    pub(super) fn resume(&mut self, conn: ConnId, id: &str, now: Now, out: &mut Vec<Output>) {
        let spec = self.suspended.get(id).expect("looked up");
        let me = self.people.conns[&conn].name().to_string();
        let black = spec.names[0] == me;
        let other = spec.names[usize::from(black)].clone();
        let game = spec.name.clone();
        self.people.set_status(conn, Status::Connected);
        let c = self.people.conns.get_mut(&conn).expect("logged in");
        c.game_name = game.clone();
        c.sente = Some(black);
        self.people.set_status(conn, Status::GameWaiting);
        let rival = self.people.names.get(&other).copied().filter(|r| {
            let r = &self.people.conns[r];
            r.status == Status::GameWaiting && r.game_name == game
        });
        if let Some(rival) = rival {
            let spec = self.suspended.remove(id).expect("looked up");
            let players = if black { [conn, rival] } else { [rival, conn] };
            self.open(spec, players, true, now, out);
        }
    }
}
