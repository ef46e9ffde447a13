//! Small readings of Rust syntax the other parts share: whether an item is test-only, an item's attributes, the
//! names a `pub use` exports.

/// Whether an item is compiled only for tests: `#[cfg(test)]`, `#[test]`, `#[tokio::test]`.
pub fn is_test_only(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        let path = attribute.path();
        if path.is_ident("test") || path.segments.last().is_some_and(|s| s.ident == "test") {
            return true;
        }
        path.is_ident("cfg")
            && attribute
                .meta
                .require_list()
                .is_ok_and(|list| list.tokens.to_string().trim() == "test")
    })
}

/// The `syn::visit::Visit` methods that leave test-only modules, functions and methods out, for the finders that
/// read only what ships (`impl<'ast> Visit<'ast> for Finder<'_> { visit_non_test_items!(); … }`).
macro_rules! visit_non_test_items {
    () => {
        fn visit_item_mod(&mut self, module: &'ast syn::ItemMod) {
            if !$crate::structure::syntax::is_test_only(&module.attrs) {
                syn::visit::visit_item_mod(self, module);
            }
        }
        fn visit_item_fn(&mut self, function: &'ast syn::ItemFn) {
            if !$crate::structure::syntax::is_test_only(&function.attrs) {
                syn::visit::visit_item_fn(self, function);
            }
        }
        fn visit_impl_item_fn(&mut self, function: &'ast syn::ImplItemFn) {
            if !$crate::structure::syntax::is_test_only(&function.attrs) {
                syn::visit::visit_impl_item_fn(self, function);
            }
        }
    };
}
pub(crate) use visit_non_test_items;

/// The attributes of an item, for the test-only check.
pub fn item_attributes(item: &syn::Item) -> Option<&[syn::Attribute]> {
    Some(match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => return None,
    })
}

/// The names a `pub use` tree exports with what each stands for (`*` for a glob, pointing at its module).
pub fn exported_names(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        syn::UseTree::Path(path) => {
            prefix.push(path.ident.to_string());
            exported_names(&path.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(name) if name.ident == "self" => {
            if let Some(last) = prefix.last() {
                out.push((last.clone(), prefix.clone()));
            }
        }
        syn::UseTree::Name(name) => {
            let mut path = prefix.clone();
            path.push(name.ident.to_string());
            out.push((name.ident.to_string(), path));
        }
        syn::UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            path.push(rename.ident.to_string());
            out.push((rename.rename.to_string(), path));
        }
        syn::UseTree::Glob(_) => out.push(("*".into(), prefix.clone())),
        syn::UseTree::Group(group) => {
            for item in &group.items {
                exported_names(item, prefix, out);
            }
        }
    }
}
