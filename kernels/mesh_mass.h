// mass properties of the solid a closed triangle mesh bounds, at a uniform density, on the host:
// volume, centre of mass, inertia tensor, principal moments and axes. A clump grain takes its
// mass and inertia from its mesh, not from the spheres fitted inside it (issue 19). No MuJoCo
// dependency.

#ifndef MJGRANULAR_MESH_MASS_H_
#define MJGRANULAR_MESH_MASS_H_

#ifdef __cplusplus
extern "C" {
#endif

// why a mesh was refused
typedef enum grnMeshStatus_ {
  grnMESH_OK = 0,           // a closed, consistently oriented mesh of positive volume
  grnMESH_ARG,              // a null pointer, no faces, or a density not positive and finite
  grnMESH_BAD_INDEX,        // a vertex index out of range, or a face naming a vertex twice
  grnMESH_NONFINITE,        // a vertex coordinate that is nan or infinite
  grnMESH_OPEN,             // an edge not shared by exactly two triangles
  grnMESH_MISORIENTED,      // two triangles traverse an edge the same way
  grnMESH_INSIDE_OUT,       // the volume is not positive: faces point inward, or the solid is flat
  grnMESH_MEMORY,           // allocation failed
} grnMeshStatus;

// The status in words, for a message naming the mesh.
const char* grn_mesh_status_string(grnMeshStatus status);

// mass properties in the mesh's frame
typedef struct grnMassProps_ {
  double volume;            // [m^3]
  double mass;              // density x volume [kg]
  double com[3];            // centre of mass [m]
  double inertia[9];        // inertia tensor about the centre of mass, row-major [kg m^2]
  double principal[3];      // principal moments, ascending [kg m^2]
  double axes[9];           // the principal axes as the columns of a rotation (det +1),
                            // row-major: body frame to mesh frame, x_mesh = com + axes x_body
  double quat[4];           // the same rotation as a unit quaternion (w, x, y, z), w >= 0
} grnMassProps;

// Mass properties of the solid bounded by a triangle mesh of uniform density [kg/m^3]: vert
// (nvert x 3), face (nface x 3) vertex indices, counter-clockwise seen from outside. The mesh must
// be closed with its vertices shared (each edge in exactly two triangles, traversed in opposite
// directions) and enclose a positive volume; else the status says why and *out is zeroed.
grnMeshStatus grn_mesh_mass(const float* vert, int nvert, const int* face, int nface,
                            double density, grnMassProps* out);

// A point of the mesh's frame in the body frame of mp: x_body = axes^T (x_mesh - com).
void grn_mesh_to_body(const grnMassProps* mp, const double x_mesh[3], double x_body[3]);

#ifdef __cplusplus
}
#endif

#endif  // MJGRANULAR_MESH_MASS_H_
