"""Accuracy of fitted contact fields (mjgranular.cem) on held-out configurations near contact,
against the grid-free reference (exact point-to-mesh distances, continuous minimisation from
many starts), the reference itself cross-checked on separated configurations against the
minimum distance between the two triangle meshes."""

import numpy as np

from mjgranular import cem, mesh_sdf

SURFACE_SAMPLES = 3000
CROSS_CHECKS = 60   # separated configurations checked against mesh-to-mesh distances


def near_configs(geom, count, rng):
    """count configurations with |phi| < NEAR_BAND x L by the sampling rule, their rotations
    uniform (no resting configurations: bench_cem measures those on the cube)."""
    t, R, _ = cem.sample_pair(geom, int(np.ceil(count / cem.NEAR_FRACTION)), rng, aligned=0,
                              supported=0)
    return t[-count:], R[-count:]   # sample_pair puts its near samples last


def surface_points(mesh, count, rng):
    """Points uniform by area on the mesh's surface."""
    return mesh_sdf.surface_samples(mesh.verts, mesh.faces, count, rng)[0]


def mesh_distance(geom, t, R, points_a, points_b):
    """Minimum distance between the meshes of a separated configuration: the smaller of the
    closest pair of dense surface samples and every vertex's exact distance to the other mesh."""
    pb = t + points_b @ R.T
    dense = min(np.min(np.linalg.norm(points_a[s:s + 500, None] - pb[None], axis=-1))
                for s in range(0, len(points_a), 500))
    a, b = geom.mesh_a, geom.mesh_b
    va = mesh_sdf.signed_distance((a.verts - t) @ R, b.verts, b.faces)[0]
    vb = mesh_sdf.signed_distance(t + b.verts @ R.T, a.verts, a.faces)[0]
    return min(dense, va.min(), vb.min())


def _stats(values):
    values = np.abs(values)
    return {"mean": float(values.mean()), "p95": float(np.percentile(values, 95)),
            "max": float(values.max())}


def pair_accuracy(fields, a, b, geom, count, rng):
    """Errors of the fields of pair (a, b) and of the sampling-rule labels against the reference,
    lengths in units of the equal-volume radius of the smaller grain."""
    radius = min(geom.mesh_a.equal_volume_radius(), geom.mesh_b.equal_volume_radius())
    t, R = near_configs(geom, count, rng)
    ref = geom.reference(t, R)
    label = geom.label(t, R)
    net = cem.evaluate(fields, a, b, t, R)
    unit = net.grad_t / np.linalg.norm(net.grad_t, axis=1, keepdims=True)
    angle = np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", unit, ref["n"]), -1, 1)))
    report = {
        "configs": count, "radius": radius,
        "phi": _stats((net.phi - ref["phi"]) / radius),
        "label_phi": _stats((label["phi"] - ref["phi"]) / radius),
        "normal_deg": _stats(angle),
        "grad_norm": _stats(np.linalg.norm(net.grad_t, axis=1)),
        "rot": _stats(np.linalg.norm(net.rot - ref["rot"], axis=1) / radius),
        "arms": _stats((net.arms - ref["arms"]).ravel() / radius),
    }
    separated = np.flatnonzero(ref["phi"] > 0)[:CROSS_CHECKS]
    if len(separated):
        pa = surface_points(geom.mesh_a, SURFACE_SAMPLES, rng)
        pb = surface_points(geom.mesh_b, SURFACE_SAMPLES, rng)
        gap = np.array([mesh_distance(geom, t[i], R[i], pa, pb) for i in separated])
        # the mesh distance is an upper bound (samples): only a positive excess is an error
        excess = (ref["phi"][separated] - gap) / radius
        report["reference_excess"] = {"mean": float(np.maximum(excess, 0).mean()),
                                      "p95": float(np.percentile(excess, 95)),
                                      "max": float(excess.max())}
    return report


def format_report(name_a, name_b, report):
    """A few lines of text: mean / 95th percentile / max of each error."""
    def row(label, key, scale=1.0, fmt=".4f"):
        s = report[key]
        return (f"  {label:<34} {s['mean'] * scale:{fmt}} / {s['p95'] * scale:{fmt}} / "
                f"{s['max'] * scale:{fmt}}")
    lines = [f"pair {name_a}-{name_b}: {report['configs']} held-out configurations near contact, "
             f"lengths / r_eq = {report['radius'] * 1e3:.3f} mm (mean / p95 / max)",
             row("phi error (net)", "phi"), row("phi error (grid labels)", "label_phi"),
             row("normal angle error (deg)", "normal_deg", fmt=".2f"),
             row("|dphi/dt|", "grad_norm", fmt=".3f"),
             row("rotation gradient error", "rot"), row("arm error", "arms")]
    if "reference_excess" in report:
        lines.append(row("reference phi - mesh distance", "reference_excess"))
    return "\n".join(lines)
