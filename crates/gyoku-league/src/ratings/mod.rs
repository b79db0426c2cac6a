//! Ratings from game results, with no I/O: [`mle`], a maximum-likelihood rating list
//! (Bradley–Terry, as Ordo and BayesElo), and [`floodgate`], Floodgate's own method as
//! shogi-server's `mk_rate` computes it.

pub mod floodgate;
pub mod glicko2;
mod linalg;
pub mod mle;
