use super::check_types;
