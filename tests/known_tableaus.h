/* Butcher tableaus more than one test reads: their orders are stated, and how they were checked,
 * where they are defined. */
#ifndef OSC_TEST_KNOWN_TABLEAUS_H
#define OSC_TEST_KNOWN_TABLEAUS_H

#include "tableau.h"

/* Ralston's second-order method (a21 = 2/3) and Kutta's third-order method. */
static inline osc_tableau ralston(void)
{
    return (osc_tableau){.stages = 2, .a = {{0}, {2.0 / 3}}, .b = {0.25, 0.75}, .c = {0, 2.0 / 3}};
}

static inline osc_tableau kutta3(void)
{
    return (osc_tableau){.stages = 3,
                         .a = {{0}, {0.5}, {-1, 2}},
                         .b = {1.0 / 6, 2.0 / 3, 1.0 / 6},
                         .c = {0, 0.5, 1}};
}

/* Butcher's seven-stage method of order 6 (J. C. Butcher, On Runge-Kutta processes of high
 * order, J. Austral. Math. Soc. 4, 1964), checked in exact rationals (the script is in the
 * commit that added it) against the 37 rooted-tree conditions of order <= 6, which all hold,
 * and the 48 of order 7, which do not all hold; R(z)'s z^7 coefficient is b^T A^6 1 = 0, not
 * 1/5040: linear order 6. A check that got any order-6 tree's gamma or weight wrong would read
 * 5 (DOPRI5 holds only to order 5). */
static inline osc_tableau butcher6(void)
{
    return (osc_tableau){.stages = 7,
                         .a = {{0},
                               {1.0 / 3},
                               {0, 2.0 / 3},
                               {1.0 / 12, 1.0 / 3, -1.0 / 12},
                               {-1.0 / 16, 9.0 / 8, -3.0 / 16, -3.0 / 8},
                               {0, 9.0 / 8, -3.0 / 8, -3.0 / 4, 0.5},
                               {9.0 / 44, -9.0 / 11, 63.0 / 44, 18.0 / 11, 0, -16.0 / 11}},
                         .b = {11.0 / 120, 0, 27.0 / 40, 27.0 / 40, -4.0 / 15, -4.0 / 15,
                               11.0 / 120},
                         .c = {0, 1.0 / 3, 2.0 / 3, 1.0 / 3, 0.5, 0.5, 1}};
}

/* Every condition up to order 5 but b.(c A c^2) = 1/15, which is 1/15 + 1/50 here: coefficient
 * order 4, but 5 on x'' = f(x), where that tree drops out (tableau.h), and linear order 5 (R(z)'s
 * z^5 coefficient is a tall tree's). Derived as tall_tree_missed was (7 stages, 28 unknowns, the
 * 16 other conditions and b.(c A c^2) = 1/15 + 1/50: a least-squares solve from DOPRI5 in
 * doubles, then minimum-norm Newton in 60-digit mpmath to residuals < 1e-47), and checked in
 * exact rationals for the doubles these 17-digit decimals become: the 16 kept conditions miss by
 * at most 5.7e-16, at most 0.31% of TREE_TOL(order, 7) * Phi_abs; the dropped tree by 0.02, 2.2e11
 * tolerances; c's row sums and sum b within 2.9% of SUM_TOL; b^T A^k 1 = 1/(k+1)! to k = 4
 * within 0.07% of the tolerance, b^T A^5 1 = 1.13e-3 against 1/720. test_tableau.c's
 * test_pendulum_orders measures 5 and 4. */
static inline osc_tableau c_ac2_missed(void)
{
    return (osc_tableau){
        .stages = 7,
        .a = {{0},
              {0.15482697695885981},
              {-0.045290252581173479, 0.35618984564351981},
              {1.0286292860602683, -3.6221393965660129, 3.6907016916612696},
              {3.1355895607883810, -11.410257106670382, 10.021000211268946,
               -0.28766366874596868},
              {3.0021585969288932, -10.611106381249175, 9.0486310546920255,
               0.44803290864592759, -0.26427546812361808},
              {0.14790758174865901, 0.037502670827426246, 0.47218340436780455,
               0.70563238924275174, -0.17745865619624342, 0.0090079947928162177}},
        .b = {0.00014509203097968583, 0.15431933957162651, 0.49457959553977073,
              0.72262165224005296, -0.39140690084638531, 0.17924239765662080,
              -0.15950117619266537},
        .c = {0, 0.15482697695885981, 0.31089959306234633, 1.0971915811555250,
              1.4586689966409764, 1.6234407108940537, 1.1947753847832143}};
}

#endif
