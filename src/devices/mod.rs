//! Device knowledge: aspects, the device table and its YAML overlays, `-fsycl-targets` names,
//! predefined macros and aspect traits. Pure: no IO, no protocol types.

pub mod acpp;
pub mod aspects;
pub mod catalogue;
pub mod config;
pub mod driver;
pub mod macros;
pub mod names;
pub mod predefined;
pub mod provenance;
pub mod release;
pub mod sycl_ls;
pub mod table;
pub mod targets;
pub mod yaml;

pub use acpp::Implementation;
pub use aspects::{registry, AspectId, AspectInfo, AspectRegistry, AspectSet};
pub use config::{ConfigFile, TargetEntry, TargetInfo};
pub use macros::{
    predefined_macros, render_macros, trait_sets, trait_sets_under, MacroFormat, TraitSets,
};
pub use names::TargetKind;
pub use release::DpcppRelease;
pub use table::{ConfigSet, DeviceTable};
pub use targets::{
    parse_target_list, resolve, InvalidTarget, ResolvedTarget, TargetList, DEVICE_BOUND_PREFIX,
};
