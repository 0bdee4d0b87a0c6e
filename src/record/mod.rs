//! Recording what happened: the journal, one JSON line per finished case,
//! from which every report (and a resumed run) is rebuilt.

pub mod journal;
