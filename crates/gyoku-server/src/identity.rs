//! Who plays, as values: a login's [`Identity`] (a CSA client, a person on the web page, or
//! an engine the page put on the CSA port), the kind of player each side of a stored game
//! was ([`PlayerKind`]), and the name games are asked for by ([`GameName`]). A name is only
//! what people read: nothing about who plays is ever read out of it.

use std::fmt;

use gyoku::Color;

/// A game name as clients ask for it (`floodgate-300-10F`, `web12x1a2b3c4d-600-10`): the
/// games with it pair their players.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct GameName(String);

macro_rules! text_value {
    ($t:ident) => {
        impl $t {
            /// The text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl From<String> for $t {
            fn from(s: String) -> $t {
                $t(s)
            }
        }

        impl From<&str> for $t {
            fn from(s: &str) -> $t {
                $t(s.to_string())
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

text_value!(GameName);

/// A player's rating key: shogi-server's `name+hash(password)`, made by the server from a
/// CSA login's password ([`crate::accounts::Accounts::rating_id`]). Ratings and a suspended
/// game's resumption go by it.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RatingKey(String);

text_value!(RatingKey);

impl fmt::Debug for RatingKey {
    // Keyed from a password: not written to logs whole.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head: String = self.0.chars().take(8).collect();
        write!(f, "RatingKey({head}…)")
    }
}

/// One side of one of the web page's games: the game's number on this server and the colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SeatId {
    /// The page's game number (counted from 1 at each start).
    pub game: u64,
    /// The side.
    pub color: Color,
}

/// How a player came to the board; stored with each side of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlayerKind {
    /// A client on the CSA port, by its login.
    Csa,
    /// A person on the web page, at a seat.
    Web,
    /// An engine the web page put on the CSA port for a seat's opponent.
    Engine,
}

impl PlayerKind {
    /// Every kind.
    pub const ALL: [PlayerKind; 3] = [PlayerKind::Csa, PlayerKind::Web, PlayerKind::Engine];

    /// Its word in storage and in the HTTP API: `csa`, `web`, `engine`.
    ///
    /// ```
    /// use gyoku_server::identity::PlayerKind;
    /// assert_eq!(PlayerKind::Engine.as_str(), "engine");
    /// assert_eq!(PlayerKind::parse("web"), Some(PlayerKind::Web));
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            PlayerKind::Csa => "csa",
            PlayerKind::Web => "web",
            PlayerKind::Engine => "engine",
        }
    }

    /// The kind a word names.
    pub fn parse(word: &str) -> Option<PlayerKind> {
        PlayerKind::ALL.into_iter().find(|k| k.as_str() == word)
    }

    /// Whether a player of this kind came from the web page (a person at a seat or the
    /// engine the page chose): only these join a game made on the page.
    pub const fn is_page(self) -> bool {
        matches!(self, PlayerKind::Web | PlayerKind::Engine)
    }
}

/// Who a login is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identity {
    /// A CSA client: its login name, and its rating key when it gave a password.
    Csa {
        /// The login name.
        name: String,
        /// Keyed from its password; `None` without one.
        rating_key: Option<RatingKey>,
    },
    /// A person on the web page, at a seat.
    Web {
        /// The seat.
        seat: SeatId,
        /// The name the person gave (`guest` when none), or their account's, as shown and
        /// recorded.
        shown: String,
        /// The account's name, when the person logged in to one (their games with other
        /// accounts are rated by it, with Glicko-2); `None` for a guest.
        account: Option<RatingKey>,
    },
    /// The engine a seat chose, on the CSA port with the seat's ticket.
    Engine {
        /// The seat it plays for (the other side of the person's).
        seat: SeatId,
        /// The engine's name on this server.
        engine: String,
    },
}

impl Identity {
    /// A CSA login by `name` without a password.
    ///
    /// ```
    /// use gyoku_server::identity::{Identity, PlayerKind};
    /// let who = Identity::csa("alice");
    /// assert_eq!((who.shown(), who.kind()), ("alice", PlayerKind::Csa));
    /// ```
    pub fn csa(name: &str) -> Identity {
        Identity::Csa {
            name: name.to_string(),
            rating_key: None,
        }
    }

    /// The name it is shown and recorded by (the CSA login name; the person's or the
    /// engine's name). Two web players may have the same one.
    pub fn shown(&self) -> &str {
        match self {
            Identity::Csa { name, .. } => name,
            Identity::Web { shown, .. } => shown,
            Identity::Engine { engine, .. } => engine,
        }
    }

    /// Its kind.
    pub const fn kind(&self) -> PlayerKind {
        match self {
            Identity::Csa { .. } => PlayerKind::Csa,
            Identity::Web { .. } => PlayerKind::Web,
            Identity::Engine { .. } => PlayerKind::Engine,
        }
    }

    /// The rating key: a CSA login's with a password, a web account's name.
    pub fn rating_key(&self) -> Option<&RatingKey> {
        match self {
            Identity::Csa { rating_key, .. } => rating_key.as_ref(),
            Identity::Web { account, .. } => account.as_ref(),
            Identity::Engine { .. } => None,
        }
    }

    /// The seat, for a player from the web page.
    pub const fn seat(&self) -> Option<SeatId> {
        match self {
            Identity::Csa { .. } => None,
            Identity::Web { seat, .. } | Identity::Engine { seat, .. } => Some(*seat),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_words() {
        for k in PlayerKind::ALL {
            assert_eq!(PlayerKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(PlayerKind::parse("Web"), None);
        assert!(!PlayerKind::Csa.is_page());
        assert!(PlayerKind::Engine.is_page());
    }

    #[test]
    fn an_identity_is_not_read_from_its_name() {
        let seat = SeatId {
            game: 3,
            color: Color::White,
        };
        // A person may call themselves anything, a CSA-looking name included.
        let person = Identity::Web {
            seat,
            shown: "alice".into(),
            account: None,
        };
        let client = Identity::Csa {
            name: "alice".into(),
            rating_key: Some(RatingKey::from("alice+0123456789abcdef")),
        };
        assert_eq!(person.shown(), client.shown());
        assert_ne!(person, client);
        assert_eq!(person.kind(), PlayerKind::Web);
        assert_eq!(person.seat(), Some(seat));
        assert_eq!(client.seat(), None);
        assert!(client.rating_key().is_some());
        assert!(person.rating_key().is_none());
        assert!(!format!("{:?}", client.rating_key()).contains("0123456789abcdef"));
    }
}
