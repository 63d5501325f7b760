use super::check_types;

#[test]
fn literals() {
    check_types(
        r#"
void f() {
  1.0;
//^^^ double
  1.0f;
//^^^^ float
  1;
//^ int
  'c';
//^^^ char
  1ull;
//^^^^ unsigned long
  true;
//^^^^ bool
}
"#,
    );
}

#[test]
fn arithmetic_conversions() {
    check_types(
        r#"
void f(float x, double d, int i) {
  auto y = x * 2.0;
//         ^^^^^^^ double
  d + 1;
//^^^^^ double
  i + x;
//^^^^^ float
  y;
//^ double
}
"#,
    );
}
